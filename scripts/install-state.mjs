// Whether node_modules matches package.json and package-lock.json. Plain JavaScript with
// built-ins only: bootstrap.mjs runs it before dependencies (and Node 24) exist.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const STAMP = join('node_modules', '.shade-office-install-stamp');

export function installFingerprint(root) {
  const hash = createHash('sha256');
  for (const file of ['package.json', 'package-lock.json']) hash.update(readFileSync(join(root, file)));
  return hash.digest('hex');
}

/** 'missing' (no install yet), 'stale' (manifest or lock changed since) or 'current'. */
export function installState(root) {
  const stamp = join(root, STAMP);
  if (!existsSync(stamp) || !existsSync(join(root, 'node_modules', '.bin', 'node'))) return 'missing';
  return readFileSync(stamp, 'utf8').trim() === installFingerprint(root) ? 'current' : 'stale';
}

export function recordInstall(root) {
  writeFileSync(join(root, STAMP), installFingerprint(root) + '\n');
}

/** How many packages node_modules holds so far (scoped ones counted one by one): the progress figure of an install. */
function packagesSoFar(root) {
  const modules = join(root, 'node_modules');
  let count = 0;
  try {
    for (const name of readdirSync(modules)) {
      if (name.startsWith('.')) continue;
      count += name.startsWith('@') ? readdirSync(join(modules, name)).length : 1;
    }
  } catch {
    // not created yet
  }
  return count;
}

/**
 * `npm ci` as a calm set-up step with its measured time: `[setup] dependencies (npm ci) ... 48 s`,
 * and while it runs a line every `tickMs` saying how long it has run and how many packages are in
 * place, so a fresh clone's first minutes never look stuck.
 * npm runs on the machine's Node, which may be older than the engines field asks (the `node` dev
 * dependency brings Node 24 for everything after this step), so its warnings (an EBADENGINE
 * block per package that wants a newer Node, unknown user config) say nothing useful here:
 * `--loglevel=error` drops them and the rest of npm's output is held back. On failure everything
 * npm printed is shown, then its exit status is returned.
 */
export function installDependencies(root, state, { npm = 'npm', stderr = process.stderr, tickMs = 15_000 } = {}) {
  const label = state === 'stale' ? 'dependencies changed: npm ci' : 'dependencies (npm ci)';
  const started = Date.now();
  const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;
  stderr.write(`[setup] ${label} ...\n`);
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(npm, ['ci', '--no-fund', '--no-audit', '--loglevel=error'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const ticker = setInterval(() => stderr.write(`[setup]   still installing (${elapsed()}, ${packagesSoFar(root)} packages in place) ...\n`), tickMs);
    const finish = (status, error) => {
      clearInterval(ticker);
      if (status !== 0) {
        stderr.write(`[setup] ${label} ... failed after ${elapsed()}\n`);
        stderr.write(`${output}${error ? `${error.message}\n` : ''}`);
        stderr.write('[setup] npm ci failed; see the output above.\n');
        resolve(status ?? 1);
        return;
      }
      stderr.write(`[setup] ${label} ... ${elapsed()}\n`);
      resolve(0);
    };
    child.on('error', (error) => finish(1, error));
    child.on('exit', (code, signal) => finish(code ?? (signal ? 1 : 0)));
  });
}

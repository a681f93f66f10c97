// Whether node_modules matches package.json and package-lock.json. Plain JavaScript with
// built-ins only: bootstrap.mjs runs it before dependencies (and Node 24) exist.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// The whole manifest and lock (what the releases before the dependency stamp read, and still write).
const STAMP = join('node_modules', '.shade-office-install-stamp');
// The manifest without its "scripts", and the lock: what npm ci installs depends on nothing else,
// so a changed npm script (`npm run ops` moving to a bundle) is no reason to install again.
const DEPENDENCY_STAMP = join('node_modules', '.shade-office-install-stamp-dependencies');

export function installFingerprint(root) {
  const hash = createHash('sha256');
  for (const file of ['package.json', 'package-lock.json']) hash.update(readFileSync(join(root, file)));
  return hash.digest('hex');
}

export function dependencyFingerprint(root) {
  const { scripts: _scripts, ...manifest } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return createHash('sha256').update(JSON.stringify(manifest)).update(readFileSync(join(root, 'package-lock.json'))).digest('hex');
}

/** 'missing' (no install yet), 'stale' (dependencies or lock changed since) or 'current'. */
export function installState(root) {
  const stamp = join(root, STAMP);
  if (!existsSync(stamp) || !existsSync(join(root, 'node_modules', '.bin', 'node'))) return 'missing';
  const dependencyStamp = join(root, DEPENDENCY_STAMP);
  // An install recorded before the dependency stamp existed is judged on the whole manifest.
  const [recorded, fingerprint] = existsSync(dependencyStamp) ? [dependencyStamp, dependencyFingerprint(root)] : [stamp, installFingerprint(root)];
  return readFileSync(recorded, 'utf8').trim() === fingerprint ? 'current' : 'stale';
}

export function recordInstall(root) {
  writeFileSync(join(root, STAMP), installFingerprint(root) + '\n');
  writeFileSync(join(root, DEPENDENCY_STAMP), dependencyFingerprint(root) + '\n');
}

/**
 * Where node_modules is a link to another checkout's (a git worktree beside its main checkout),
 * npm ci would empty that checkout's node_modules under everyone who uses it and install a folder
 * of its own here: answers the link's target then, so that the caller refuses instead.
 */
export function sharedNodeModules(root) {
  const modules = join(root, 'node_modules');
  try {
    return lstatSync(modules).isSymbolicLink() ? realpathSync(modules) : undefined;
  } catch {
    return undefined;
  }
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

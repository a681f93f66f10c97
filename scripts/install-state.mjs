// Whether node_modules matches package.json and package-lock.json. Plain JavaScript with
// built-ins only: bootstrap.mjs runs it before dependencies (and Node 24) exist.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
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

/**
 * `npm ci` as one calm set-up line with its time: `[setup] dependencies (npm ci ...) ... 48 s`.
 * npm runs on the machine's Node, which may be older than the engines field asks (the `node` dev
 * dependency brings Node 24 for everything after this step), so its warnings (an EBADENGINE
 * block per package that wants a newer Node, unknown user config) say nothing useful here:
 * `--loglevel=error` drops them and the rest of npm's output is held back. On failure everything
 * npm printed is shown, then its exit status is returned.
 */
export function installDependencies(root, state, { npm = 'npm', stderr = process.stderr } = {}) {
  const label = state === 'stale' ? 'dependencies changed: npm ci' : 'dependencies (npm ci, about a minute on a fresh clone)';
  const started = Date.now();
  const live = stderr.isTTY === true;
  if (live) stderr.write(`[setup] ${label} ...`);
  const result = spawnSync(npm, ['ci', '--no-fund', '--no-audit', '--loglevel=error'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const end = (text) => stderr.write(live ? ` ${text}\n` : `[setup] ${label} ... ${text}\n`);
  if (result.status !== 0) {
    end('failed');
    stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? `${result.error.message}\n` : ''}`);
    stderr.write('[setup] npm ci failed; see the output above.\n');
    return result.status ?? 1;
  }
  end(`${Math.round((Date.now() - started) / 1000)} s`);
  return 0;
}

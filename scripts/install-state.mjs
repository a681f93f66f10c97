// Whether node_modules matches package.json and package-lock.json. Plain JavaScript with
// built-ins only: bootstrap.mjs runs it before dependencies (and Node 24) exist.
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

// Entry point of `npm start`, `npm test` and `npm run test:unit`. It must run on whatever Node
// the machine has (the first run of a fresh clone has no node_modules yet, so no Node 24
// either): plain JavaScript, built-ins only. It installs dependencies when they are missing or
// stale, then hands over to the TypeScript entry point on the Node 24 that the `node` dev
// dependency ships.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installDependencies, installState, recordInstall, sharedNodeModules } from './install-state.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const nodeBin = join(root, 'node_modules', '.bin', 'node');
const entries = { start: 'scripts/start.ts', test: 'scripts/test.ts', unit: 'scripts/test-unit.ts' };

async function ensureDependencies() {
  const state = installState(root);
  if (state === 'current') return;
  const shared = sharedNodeModules(root);
  if (shared) {
    console.error(`[setup] node_modules is a link to ${shared}, whose install does not match this package.json and package-lock.json (${state}).`);
    console.error('[setup] Not installing through the link (npm ci would empty it under every checkout that uses it): install where it points, or give this checkout a node_modules of its own.');
    process.exit(1);
  }
  const status = await installDependencies(root, state);
  if (status !== 0) process.exit(status);
  recordInstall(root);
}

const command = process.argv[2];
if (!entries[command]) {
  console.error(`usage: node scripts/bootstrap.mjs ${Object.keys(entries).join('|')} [args...]`);
  process.exit(2);
}
await ensureDependencies();
const child = spawn(nodeBin, ['--import', 'tsx', entries[command], ...process.argv.slice(3)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH ?? ''}` },
});
// The child owns shutdown: forward the signal and exit with its code once it has cleaned up.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

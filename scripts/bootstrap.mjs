// Entry point of `npm start`, `npm test` and `npm run test:unit`. It must run on whatever Node
// the machine has (the first run of a fresh clone has no node_modules yet, so no Node 24
// either): plain JavaScript, built-ins only. It installs dependencies when they are missing or
// stale, then hands over to the TypeScript entry point on the Node 24 that the `node` dev
// dependency ships.
import { spawn } from 'node:child_process';
import { lstatSync, readlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { installDependencies, installState } from './install-state.mjs';

// When the user's command began (this process's start, epoch ms): `npm start`'s ready time counts
// from here, the install included.
const launchedAt = Math.round(performance.timeOrigin);

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const nodeBin = join(root, 'node_modules', '.bin', 'node');
const entries = { start: 'scripts/start.ts', test: 'scripts/test.ts', unit: 'scripts/test-unit.ts' };

/** Installs when node_modules is missing or stale; answers how long that took (0: nothing to do). */
async function ensureDependencies() {
  const state = installState(root);
  if (state === 'current') return 0;
  // A node_modules that is a link to another checkout's (worktrees sharing one install): npm ci
  // would empty the folder it points to, which the other checkouts are using, then put a folder
  // of its own in place of the link. Say so and leave both alone.
  const modules = join(root, 'node_modules');
  if (lstatSync(modules, { throwIfNoEntry: false })?.isSymbolicLink()) {
    const target = readlinkSync(modules);
    console.error(
      `[setup] node_modules is a link to ${target}, which ${state === 'missing' ? 'holds no install' : 'does not match package.json and package-lock.json here'}.\n` +
        `[setup] npm ci here would empty ${target} (for every checkout using it) and replace the link: install where it points, or remove the link, then run this again.`,
    );
    process.exit(1);
  }
  const started = Date.now();
  const status = await installDependencies(root, state);
  if (status !== 0) process.exit(status);
  return Date.now() - started;
}

const command = process.argv[2];
if (!entries[command]) {
  console.error(`usage: node scripts/bootstrap.mjs ${Object.keys(entries).join('|')} [args...]`);
  process.exit(2);
}
const installMs = await ensureDependencies();
// `npm start`'s launcher runs in a process group of its own (detached), with everything it starts:
// Ctrl-C in the terminal signals the terminal's foreground group, which would reach PostgreSQL,
// Temporal, the worker and the API all at once, and PostgreSQL would be gone before the API and
// the worker remove their running_releases rows. Detached, only this process and npm receive it;
// the launcher is told once and stops the processes first, then the database
// (scripts/start.ts). It notices too if this process dies without telling it.
const ownGroup = command === 'start';
const child = spawn(nodeBin, ['--import', 'tsx', entries[command], ...process.argv.slice(3)], {
  cwd: root,
  stdio: 'inherit',
  detached: ownGroup,
  env: {
    ...process.env,
    PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
    // What the launcher's ready time counts (scripts/infra/log.ts, launchedAt).
    ...(command === 'start' ? { SHADE_OFFICE_LAUNCHED_AT: String(launchedAt), SHADE_OFFICE_INSTALL_MS: String(installMs) } : {}),
  },
});
// The child owns shutdown: forward the signal and exit with its code once it has cleaned up.
// Closing the terminal (SIGHUP) no longer reaches a detached launcher by itself: forwarded too.
for (const signal of ownGroup ? ['SIGINT', 'SIGTERM', 'SIGHUP'] : ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

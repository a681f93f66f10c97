import { spawn } from 'node:child_process';
import { ensureTemporalCli } from './infra/temporal-cli';

/**
 * `npm run --silent temporal -- <args>`: the Temporal CLI that `npm start` uses, wherever it is
 * (TEMPORAL_CLI, then PATH, then the tool cache `npm start` built it into, else built there
 * now), run with the given arguments. So docs/operations.md's commands run as written in a fresh
 * shell, with nothing added to PATH.
 */
const cli = await ensureTemporalCli();
const child = spawn(cli, process.argv.slice(2), { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
child.on('error', (error) => {
  console.error(`could not run ${cli}: ${error.message}`);
  process.exit(1);
});

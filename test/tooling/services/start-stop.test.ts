import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../../scripts/infra/free-port';
import { projectRoot } from '../../../scripts/infra/paths';
import { startEmbeddedPostgres } from '../../../scripts/infra/embedded-postgres';

/**
 * `npm start` as a user runs it (scripts/bootstrap.mjs start), with everything of its own: the
 * embedded PostgreSQL and the Temporal development server it starts itself (DATABASE_URL and
 * TEMPORAL_ADDRESS unset), on ports and in a data folder of this test's (beside other stacks on
 * the machine), then stopped the way a terminal's Ctrl-C does: SIGINT to the whole foreground
 * process group. PostgreSQL must outlive the API and the worker, which remove their
 * running_releases rows on the way out (a row left behind refuses a contract migration for 90 s;
 * docs/operations.md). And the API answers this machine only (loopback) under npm start.
 */
const data = mkdtempSync(join(tmpdir(), 'start-stop-'));
// Run as root, the embedded PostgreSQL runs as the postgres user, who must reach its folder in here.
chmodSync(data, 0o755);
let child: ChildProcess | undefined;

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    process.kill(-child.pid!, 'SIGINT');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 60_000).unref())]);
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
  }
  rmSync(data, { recursive: true, force: true });
}, 90_000);

/** The local addresses listening on `port` (LISTEN sockets, from /proc/net/tcp and tcp6). */
function listeningOn(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const found: string[] = [];
  for (const [file, v6] of [['/proc/net/tcp', false], ['/proc/net/tcp6', true]] as const) {
    for (const line of readFileSync(file, 'utf8').trim().split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      const [address, localPort] = local!.split(':');
      if (localPort !== hexPort || state !== '0A') continue;
      // The kernel writes each 32-bit word in host (little-endian) order.
      const words = address!.match(/.{8}/g)!.map((w) => w.match(/../g)!.reverse().join(''));
      if (!v6) found.push(words[0]!.match(/../g)!.map((b) => parseInt(b, 16)).join('.'));
      else {
        const groups = words.join('').match(/.{4}/g)!.map((g) => parseInt(g, 16).toString(16));
        found.push(groups.every((g) => g === '0') ? '::' : groups.join(':'));
      }
    }
  }
  return found;
}

describe('npm start: stop in order, loopback by default, ready time from the command', () => {
  it('starts its own PostgreSQL and Temporal, listens on 127.0.0.1 only, and on Ctrl-C stops the API and the worker before PostgreSQL', async () => {
    const [pgPort, temporalPort, temporalUiPort, apiPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // Nothing configured: the launcher starts its own PostgreSQL and Temporal.
      DATABASE_URL: '',
      TEMPORAL_ADDRESS: '',
      NODE_ENV: '',
      API_HOST: '',
      NODE_OPTIONS: '',
      LOG_LEVEL: 'warn',
      SHADE_OFFICE_DATA_DIR: data,
      EMBEDDED_POSTGRES_PORT: String(pgPort),
      TEMPORAL_DEV_PORT: String(temporalPort),
      TEMPORAL_DEV_UI_PORT: String(temporalUiPort),
      PORT: String(apiPort),
      METRICS_PORT: '0',
      WORKER_METRICS_PORT: '0',
      PROVIDER_SANDBOX_PORT: '0',
      MAIL_CATCHER_PORT: '0',
      MAIL_CATCHER_SMTP_PORT: '0',
      SMTP_URL: '',
      PAYMENTS_SECRET_KEY: '',
      ACCOUNTING_CLIENT_ID: '',
      CRM_CLIENT_ID: '',
    };
    const spawnedAt = Date.now();
    // As a shell runs a command: a process group of its own, which the terminal's Ctrl-C signals whole.
    child = spawn(process.execPath, ['scripts/bootstrap.mjs', 'start'], { cwd: projectRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));

    const deadline = Date.now() + 300_000;
    while (!output.includes('Shade Office is ready')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the stack did not come up:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const waited = (Date.now() - spawnedAt) / 1000;
    expect(output).toContain(`[setup] PostgreSQL ... embedded on 127.0.0.1:${pgPort}`);
    expect(output).toContain(`[setup] Temporal ... development server on 127.0.0.1:${temporalPort}`);

    // The ready time is what the user waited: from the command, not from the launcher's start
    // after Node, tsx and the install check (a few seconds on this machine).
    const readyIn = Number(/Shade Office is ready \((\d+(?:\.\d)?) s[,)]/.exec(output)?.[1]);
    expect(readyIn).toBeGreaterThanOrEqual(waited - 1.5);
    expect(readyIn).toBeLessThanOrEqual(waited + 0.5);

    // Loopback only, and said so.
    expect(listeningOn(apiPort)).toEqual(['127.0.0.1']);
    expect((await fetch(`http://127.0.0.1:${apiPort}/api/health`)).status).toBe(200);
    expect(output).toContain(`API               http://127.0.0.1:${apiPort}  (this machine only; API_HOST=0.0.0.0 opens it to the network)`);

    // Both processes have recorded themselves.
    const url = `postgres://postgres:postgres@127.0.0.1:${pgPort}/shade_office`;
    const running = new pg.Client({ connectionString: url });
    await running.connect();
    expect((await running.query<{ role: string }>('select role from running_releases order by role')).rows.map((r) => r.role)).toEqual(['api', 'worker']);
    await running.end();

    // Ctrl-C, as the terminal sends it: to every process of the foreground group.
    process.kill(-child.pid!, 'SIGINT');
    const code = await exited;

    // The rows are gone: PostgreSQL was still there when the API and the worker removed them.
    let leftBehind: string[];
    try {
      const again = await startEmbeddedPostgres({ dataDir: join(data, 'postgres'), port: pgPort, persistent: true });
      try {
        const after = new pg.Client({ connectionString: url });
        await after.connect();
        leftBehind = (await after.query<{ role: string }>('select role from running_releases order by role')).rows.map((r) => r.role);
        await after.end();
      } finally {
        await again.stop();
      }
    } catch (error) {
      throw new Error(`PostgreSQL did not start again on the stack's data after the stop (${String(error)}); the stack said:\n${output}`);
    }
    const warnings = output.split('\n').filter((line) => /running_releases|ECONNREFUSED/.test(line));
    expect({ leftBehind, warnings }).toEqual({ leftBehind: [], warnings: [] });
    expect(output).toContain('[setup] stopped');
    expect(code).toBe(0);
  }, 420_000);
});

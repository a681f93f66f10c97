import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { startEmbeddedPostgres, type RunningPostgres } from '../../scripts/infra/embedded-postgres';
import { freePort } from '../../scripts/infra/free-port';
import { dataDir } from '../../scripts/infra/paths';
import { withDatabaseName } from '../../db/database-urls';
import { migrate } from '../../db/migrate';
import { seedSandbox } from '../../db/seed';
import { waitUntil } from '../../scripts/harness/wait-until';
import { freezePostgres, type Frozen } from '../support/frozen-postgres';

/**
 * While PostgreSQL is unreachable, requests answer 503 with Retry-After in their interface's
 * shape (never 500), the API stays up, and it recovers by itself when the database returns.
 * The suite's own PostgreSQL is shared by every test file, so this one stops a server of its own.
 */
let server: RunningPostgres;
let port: number;
let api: ApiHarness;
let token: string;
let url: string;
/** A freeze not yet thawed (a failed test): thawed before the server is stopped. */
let frozen: Frozen | undefined;
const folder = join(dataDir, `outage-postgres-${process.pid}`);
const passwords = { api: randomBytes(12).toString('hex'), worker: randomBytes(12).toString('hex') };

const startServer = () => startEmbeddedPostgres({ dataDir: folder, port, persistent: true });

beforeAll(async () => {
  port = await freePort();
  server = await startServer();
  url = withDatabaseName(server.url, 'shade_outage');
  await migrate(url, passwords);
  await seedSandbox(url);
  api = await startApi({ env: { DATABASE_URL: url, DATABASE_APP_PASSWORD: passwords.api, DATABASE_WORKER_PASSWORD: passwords.worker } });
  const owner = new pg.Pool({ connectionString: url, max: 1 });
  const { rows } = await owner.query<{ id: string; organization_id: string }>(`select id, organization_id from users where email = 'admin@sandbox.test' order by created_at limit 1`);
  await owner.end();
  token = await api.tokenFor({ id: rows[0]!.id, organizationId: rows[0]!.organization_id, role: 'ADMIN' });
}, 120_000);

afterAll(async () => {
  frozen?.thaw();
  await api?.close();
  await server?.stop();
  rmSync(folder, { recursive: true, force: true });
});

const GRAPHQL_QUERY = { query: '{ workOrders(first: 2) { nodes { id status } } }' };
const reads = [
  { path: '/api/v1/auth/me', shape: 'envelope' },
  { path: '/api/v1/quotes', shape: 'envelope' },
  { path: '/v1/fsm/jobs', shape: 'problem' },
  { path: '/v1/customers', shape: 'problem' },
  { path: '/v1/graphql', shape: 'graphql' },
] as const;

/** GraphQL's read is a POST of its query; the others are GETs. */
const send = (read: (typeof reads)[number]) => api.request(read.path, { token, ...(read.shape === 'graphql' ? { method: 'POST', json: GRAPHQL_QUERY } : {}) });

describe('a database outage', () => {
  it('answers 503 with Retry-After in each interface\'s shape while PostgreSQL is down, and recovers by itself', async () => {
    for (const read of reads) expect({ path: read.path, status: (await send(read)).status }).toEqual({ path: read.path, status: 200 });

    await server.stop();
    for (const read of reads) {
      const res = await send(read);
      const body = (await res.json()) as Record<string, unknown>;
      expect({ path: read.path, status: res.status, retryAfter: res.headers.get('retry-after') }).toEqual({ path: read.path, status: 503, retryAfter: expect.stringMatching(/^\d+$/) });
      if (read.shape === 'envelope') expect(body).toMatchObject({ error: { code: 'provider_error', message: expect.stringMatching(/database/i) } });
      // GraphQL answers in its own shape, as a GraphQL client reads it: one error with SERVICE_UNAVAILABLE.
      else if (read.shape === 'graphql') expect(body).toEqual({ errors: [{ message: expect.stringMatching(/database/i), extensions: { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: Number(res.headers.get('retry-after')) } }] });
      else {
        expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
        expect(body).toMatchObject({ status: 503, title: 'The service is temporarily unavailable.' });
      }
    }
    // Logging in reads the database too.
    const login = await api.request('/api/v1/auth/login', { method: 'POST', json: { subdomain: 'sandbox', email: 'admin@sandbox.test', password: 'x'.repeat(12) } });
    expect(login.status).toBe(503);

    server = await startServer();
    await waitUntil('the API to answer again', async () => (await api.request('/api/v1/auth/me', { token })).status === 200, { timeoutMs: 30_000 });
    for (const read of reads) expect({ path: read.path, status: (await send(read)).status }).toEqual({ path: read.path, status: 200 });
  }, 120_000);

  it('under concurrent traffic: every answer is a 200 or a 503 with Retry-After while the database stops and starts, traffic recovers by itself, and no connection is left checked out', async () => {
    const CLIENTS = 8;
    const answers = new Map<string, number>();
    const failures: string[] = [];
    let phase: 'before' | 'down' | 'after' = 'before';
    let stopping = false;
    const recoveredClients = new Set<number>();
    const inFlight = new Map<number, string>();
    const detail = () => JSON.stringify({ answers: Object.fromEntries(answers), failures: failures.slice(0, 10), inFlight: Object.fromEntries(inFlight) });
    const client = async (index: number) => {
      for (let n = index; !stopping; n++) {
        const read = reads[n % reads.length]!;
        inFlight.set(index, `${phase} ${read.path}`);
        try {
          const res = await send(read);
          await res.arrayBuffer();
          const key = `${phase} ${res.status}`;
          answers.set(key, (answers.get(key) ?? 0) + 1);
          if (res.status !== 200 && !(res.status === 503 && /^\d+$/.test(res.headers.get('retry-after') ?? ''))) failures.push(`${phase} ${read.path}: ${res.status}`);
          if (phase === 'after' && res.status === 200) recoveredClients.add(index);
        } catch (error) {
          // The API itself must stay up and answer every request it accepted.
          failures.push(`${phase} ${read.path}: ${String(error)}`);
        }
        inFlight.delete(index);
      }
    };
    const traffic = Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));
    await waitUntil('traffic before the outage', async () => (answers.get('before 200') ?? 0) >= 40, { timeoutMs: 30_000, detail });
    phase = 'down';
    await server.stop();
    await waitUntil('503s under traffic while the database is down', async () => (answers.get('down 503') ?? 0) >= 40, { timeoutMs: 30_000, detail });
    server = await startServer();
    phase = 'after';
    await waitUntil('every client answered 200 again', async () => recoveredClients.size === CLIENTS, { timeoutMs: 30_000, detail });
    stopping = true;
    await traffic;
    expect(failures).toEqual([]);
    expect(answers.get('down 500') ?? 0).toBe(0);

    // Nothing was left checked out of the pools: the API stops (closing them) promptly.
    const closing = api.close();
    const outcome = await Promise.race([closing.then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('still closing after 15 s'), 15_000))]);
    expect(outcome).toBe('closed');
    api = undefined as unknown as ApiHarness;
  }, 150_000);
});

describe('a frozen database (SIGSTOP of the server: a stalled disk or a network partition)', () => {
  // Bounds tighter than the defaults (5 s and 10 s), so that a 20-second freeze outlasts them twice over.
  const CONNECT_MS = 1_000;
  const STATEMENT_MS = 1_500;
  /**
   * The longest one wait may last: a connection, then a statement whose connection is cut a
   * second after its timeout. A request of /api/ waits twice at most: its rate-limit counter
   * (which then counts in memory) and its own data.
   */
  const WAIT_MS = CONNECT_MS + STATEMENT_MS + 1_000;
  const BOUND_MS = 2 * WAIT_MS + 2_000;
  /** Long enough for both rounds of requests below to be answered while it lasts. */
  const FREEZE_MS = 20_000;

  it('answers 503 with Retry-After within the connection and statement bounds while it lasts, and recovers by itself when it thaws', async () => {
    const bounded = await startApi({
      env: { DATABASE_URL: url, DATABASE_APP_PASSWORD: passwords.api, DATABASE_WORKER_PASSWORD: passwords.worker, DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_MS), DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_MS) },
    });
    let closed = false;
    const timed = async (read: (typeof reads)[number] | 'login') => {
      const started = Date.now();
      const res =
        read === 'login'
          ? await bounded.request('/api/v1/auth/login', { method: 'POST', json: { subdomain: 'sandbox', email: 'admin@sandbox.test', password: 'x'.repeat(12) } })
          : await bounded.request(read.path, { token, ...(read.shape === 'graphql' ? { method: 'POST', json: GRAPHQL_QUERY } : {}) });
      const body = (await res.json()) as Record<string, unknown>;
      return { path: read === 'login' ? 'login' : read.path, status: res.status, retryAfter: res.headers.get('retry-after'), ms: Date.now() - started, body };
    };
    try {
      // Connections open and idle in the pools: the first requests below take them, and wait on them.
      for (const read of reads) expect({ path: read.path, status: (await timed(read)).status }).toEqual({ path: read.path, status: 200 });

      const ice = freezePostgres(server);
      frozen = ice;
      // It thaws on its own clock, whatever the requests do meanwhile.
      const thawed = new Promise<number>((resolve) => setTimeout(() => {
        ice.thaw();
        resolve(Date.now());
      }, FREEZE_MS));
      // Every read and a login at once, then again (now on connections the pools have to open).
      const answers = [...(await Promise.all([...reads, 'login' as const].map(timed))), ...(await Promise.all([...reads, 'login' as const].map(timed)))];
      const lastAnswerAt = Date.now();
      const thawedAt = await thawed;
      frozen = undefined;
      for (const answer of answers) {
        expect({ path: answer.path, status: answer.status, retryAfter: answer.retryAfter, withinBound: answer.ms <= BOUND_MS }).toEqual({
          path: answer.path, status: 503, retryAfter: expect.stringMatching(/^\d+$/), withinBound: true,
        });
        if (answer.path === '/v1/graphql') expect(answer.body).toEqual({ errors: [{ message: expect.stringMatching(/database/i), extensions: { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: Number(answer.retryAfter) } }] });
      }
      // All of them while it was frozen.
      expect(lastAnswerAt).toBeLessThan(thawedAt);
      await waitUntil('the API to answer again', async () => (await bounded.request('/api/v1/auth/me', { token })).status === 200, { timeoutMs: 30_000 });
      for (const read of reads) expect({ path: read.path, status: (await timed(read)).status }).toEqual({ path: read.path, status: 200 });
      // Nothing is left checked out: the API stops promptly.
      closed = true;
      const outcome = await Promise.race([bounded.close().then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('still closing after 15 s'), 15_000))]);
      expect(outcome).toBe('closed');
    } finally {
      frozen?.thaw();
      frozen = undefined;
      if (!closed) await bounded.close().catch(() => undefined);
    }
  }, 120_000);
});

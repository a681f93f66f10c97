import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type pg from 'pg';
import { startApi } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { twoWindows } from '../../scripts/harness/quote-requests';
import { route } from '../../api/http/route';
import { freePort } from '../../scripts/infra/free-port';
import { projectRoot } from '../../scripts/infra/paths';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';

/**
 * Stopping the API must not drop requests in flight (an approval would commit without a reply).
 * It drains: no new connections, every request in flight finishes, then the pools close.
 */
let owner: pg.Pool;
let tenant: Tenant;

beforeAll(async () => {
  owner = ownerPool();
  tenant = await createTenant(owner, { admin: 'ADMIN' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
});
afterAll(() => owner.end());

/** One request on a connection of its own; resolves with the status, or the connection error's code. */
function call(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status?: number; body?: string; error?: string }> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { method: init.method ?? 'GET', headers: init.headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode, body }));
      res.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.end(init.body);
  });
}

describe('stopping the API', () => {
  it('answers every request in flight, refuses new connections, and closes the pools only after', async () => {
    let entered = 0;
    const api = await startApi({
      extraRoutes: (host) =>
        route(host, {
          method: 'get',
          path: '/api/test/slow',
          operationId: 'testSlow',
          summary: 'Waits, then uses the database (test only)',
          description: 'Test only: holds the request open so that shutdown can be seen draining it.',
          tags: ['test'],
          auth: 'none',
          responses: { 200: { description: 'ok' } },
          handler: async ({ res }) => {
            entered++;
            await new Promise((r) => setTimeout(r, 400));
            // The pool must still be open when the handler gets here.
            const [row] = await api.orm.em.fork().execute<{ ok: number }[]>('select 1 as ok');
            res.json(row);
          },
        }),
    });
    const inFlight = Array.from({ length: 10 }, () => call(`${api.url}/api/test/slow`));
    while (entered < 10) await new Promise((r) => setTimeout(r, 10));
    const stopped = api.close(5_000);
    await new Promise((r) => setTimeout(r, 50));
    const late = await call(`${api.url}/api/test/slow`);
    const answers = await Promise.all(inFlight);
    expect(answers).toEqual(Array.from({ length: 10 }, () => ({ status: 200, body: '{"ok":1}' })));
    expect(late).toEqual({ error: 'ECONNREFUSED' });
    expect(await stopped).toEqual({ drained: true });
  });

  it('api/main.ts on SIGTERM answers every approval it accepted: none is committed without a reply', async () => {
    const port = await freePort();
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
      cwd: projectRoot,
      env: { ...process.env, PORT: String(port), TRUST_PROXY_HOPS: '1', TEMPORAL_TASK_QUEUE: `shutdown-${randomBytes(4).toString('hex')}`, LOG_LEVEL: 'info', NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const base = `http://127.0.0.1:${port}`;
      for (let i = 0; (await call(`${base}/api/health`)).status !== 200; i++) {
        if (i > 300 || child.exitCode !== null) throw new Error(`the API did not start:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const headers = { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${1 + (port % 250)}` };
      const admin = tenant.users.admin!;
      const login = await call(`${base}/api/v1/auth/login`, { method: 'POST', headers, body: JSON.stringify({ subdomain: tenant.subdomain, email: admin.email, password: admin.password }) });
      const authorized = { ...headers, authorization: `Bearer ${(JSON.parse(login.body!) as { access_token: string }).access_token}` };
      const quoteIds: string[] = [];
      for (let i = 0; i < 24; i++) {
        const calc = await call(`${base}/api/v1/quotes/calculate`, { method: 'POST', headers: authorized, body: JSON.stringify(twoWindows({ persist: true })) });
        quoteIds.push((JSON.parse(calc.body!) as { quote_id: string }).quote_id);
      }

      // All at once; the stop arrives as soon as the first is answered, with the rest in flight.
      let signalled = false;
      const approvals = quoteIds.map((id) =>
        call(`${base}/api/v1/quotes/${id}/approve`, { method: 'POST', headers: authorized }).then((answer) => {
          if (!signalled) {
            signalled = true;
            child.kill('SIGTERM');
          }
          return { id, ...answer };
        }),
      );
      const answers = await Promise.all(approvals);
      expect(await exited).toBe(0);
      expect(output).toContain('api stopped');

      const approved = (await owner.query<{ id: string }>(`select id from quotes where id = any($1::uuid[]) and status = 'APPROVED'`, [quoteIds])).rows.map((r) => r.id).sort();
      const answeredOk = answers.filter((a) => a.status === 200).map((a) => a.id).sort();
      // Every committed approval got its 200, and nothing got a 5xx. The rest never reached a
      // handler: refused, or reset while still in the kernel's accept queue when it closed.
      expect(answeredOk).toEqual(approved);
      expect(answeredOk.length).toBeGreaterThan(1);
      for (const answer of answers.filter((a) => a.status !== 200)) expect({ id: answer.id, status: answer.status, refused: /^(ECONNREFUSED|ECONNRESET)$/.test(answer.error ?? '') }).toEqual({ id: answer.id, status: undefined, refused: true });
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);
});

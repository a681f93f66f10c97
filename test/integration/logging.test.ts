import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import type pg from 'pg';
import { createLogger } from '../../infra/runtime/logger';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { waitUntil } from '../../scripts/harness/wait-until';

const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    done();
  },
});

let owner: pg.Pool;
let api: ApiHarness;
let tenant: Tenant;
beforeAll(async () => {
  owner = ownerPool();
  api = await startApi({ logger: createLogger('debug', sink) });
  tenant = await createTenant(owner, { admin: 'ADMIN' });
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

describe('structured logs', () => {
  it('are JSON with the request id on every line of a request, and never hold a password or token', async () => {
    const admin = tenant.users.admin!;
    const login = await api.request('/api/v1/auth/login', {
      method: 'POST',
      headers: { 'x-request-id': 'log-test-login' },
      json: { subdomain: tenant.subdomain, email: admin.email, password: admin.password },
    });
    const { access_token } = (await login.json()) as { access_token: string };
    await api.request('/api/v1/auth/me?code=oauth-code-secret&state=signed-state', { token: access_token, headers: { 'x-request-id': 'log-test-me' } });
    await api.request('/api/v1/auth/login', { method: 'POST', headers: { 'x-request-id': 'log-test-bad' }, json: { subdomain: tenant.subdomain, email: admin.email, password: 'wrong-password-xyz' } });
    // Each request's last line is its `request completed`, written when the response finished.
    const ids = ['log-test-login', 'log-test-me', 'log-test-bad'];
    await waitUntil('every request to log its completion', () =>
      ids.every((id) => lines.some((line) => line.includes(`"request_id":"${id}"`) && line.includes('"msg":"request completed"'))),
    );

    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const ours = parsed.filter((l) => String(l.request_id ?? '').startsWith('log-test-'));
    expect(new Set(ours.map((l) => l.request_id))).toEqual(new Set(ids));
    for (const line of ours) expect(line).toMatchObject({ level: expect.any(String), time: expect.any(String), msg: expect.any(String) });
    const all = lines.join('\n');
    for (const secret of [admin.password, 'wrong-password-xyz', access_token, access_token.split('.')[2]!, 'oauth-code-secret', 'signed-state', api.settings.AUTH_TOKEN_SECRET]) {
      expect(all).not.toContain(secret);
    }
  });

  it('redacts secret-named fields wherever they appear', () => {
    const captured: string[] = [];
    const logger = createLogger('info', new Writable({ write: (c: Buffer, _e, d) => { captured.push(c.toString()); d(); } }));
    logger.info({ password: 'p1', headers: { authorization: 'Bearer t1' }, nested: { token: 't2', secret: 's1', refresh_token: 'r1' } }, 'x');
    const out = captured.join('');
    for (const value of ['p1', 't1', 't2', 's1', 'r1']) expect(out).not.toContain(`"${value}"`);
    expect(out).toContain('[redacted]');
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { appDatabaseUrl, workerDatabaseUrl } from '../../db/database-urls';
import { recordAuditEvent, SecretInAuditLogError } from '../../db/audit/audit-events';
import { inTenant } from '../../db/tenant-scope';
import { nextLink } from '../support/link-header';

/**
 * D22: the audit log is written in the transaction of the change, append-only in the database,
 * listed newest first to the tenant's ADMINs only, and never carries a secret.
 */
let owner: pg.Pool;
let api: ApiHarness;
let a: Tenant;
let b: Tenant;
const tokens = { a: "", aSales: "", b: "" };

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi({ env: { CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64'), OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' } });
  a = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES' });
  b = await createTenant(owner, { admin: 'ADMIN' });
  tokens.a = await api.tokenFor(a.users.admin!);
  tokens.aSales = await api.tokenFor(a.users.sales!);
  tokens.b = await api.tokenFor(b.users.admin!);
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

const list = async (path: string, token: string) => {
  const res = await api.request(path, { token });
  return { status: res.status, body: (await res.json()) as { data: Array<Record<string, unknown>> }, res };
};

describe('the audit log is append-only in the database (D22)', () => {
  it("neither the API's nor the worker's role can update or delete an audit event, even of its own tenant", async () => {
    await inTenant(api.orm.em.fork(), a.id, (tx) =>
      recordAuditEvent(tx, a.id, { actor: { type: 'system', id: null, email: null }, action: 'organization.updated', entityType: 'organization', entityId: a.id, changes: [{ field: 'display_name', before: 'x', after: 'y' }], requestId: null }),
    );
    for (const url of [appDatabaseUrl(process.env.DATABASE_URL!, process.env.DATABASE_APP_PASSWORD!), workerDatabaseUrl(process.env.DATABASE_URL!, process.env.DATABASE_WORKER_PASSWORD!)]) {
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      try {
        for (const statement of [`update audit_events set action = 'user.updated'`, 'delete from audit_events', 'truncate audit_events']) {
          const client = await pool.connect();
          try {
            await client.query('begin');
            await client.query('select app_enter_tenant($1)', [a.id]);
            await expect(client.query(statement)).rejects.toThrow(/permission denied|append-only/);
          } finally {
            await client.query('rollback').catch(() => undefined);
            client.release();
          }
        }
      } finally {
        await pool.end();
      }
    }
    // Not even the owner (migrations) rewrites history: the trigger refuses.
    await expect(owner.query(`update audit_events set action = 'user.updated' where organization_id = $1`, [a.id])).rejects.toThrow(/append-only/);
  });

  it('an event naming a secret field is refused before it is written, and nothing of it is kept', async () => {
    for (const field of ['secret', 'refresh_token', 'password_hash', 'signingSecret', 'ciphertext', 'api_key']) {
      await expect(
        inTenant(api.orm.em.fork(), a.id, (tx) =>
          recordAuditEvent(tx, a.id, { actor: { type: 'system', id: null, email: null }, action: 'webhook_endpoint.updated', entityType: 'webhook_endpoint', entityId: 'x', changes: [{ field, before: 'a', after: 'b' }], requestId: null }),
        ),
      ).rejects.toBeInstanceOf(SecretInAuditLogError);
    }
    const { rows } = await owner.query(`select count(*)::int as n from audit_events where organization_id = $1 and entity_id = 'x'`, [a.id]);
    expect(rows[0].n).toBe(0);
  });
});

describe('GET /api/v1/audit-events (D22)', () => {
  let endpointId: string;

  beforeAll(async () => {
    const created = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: tokens.a, json: { url: 'http://127.0.0.1:9/hooks', events: ['quote.approved'] } });
    expect(created.status).toBe(201);
    const endpoint = (await created.json()) as { id: string; secret: string };
    endpointId = endpoint.id;
    expect((await api.request(`/api/v1/webhook-endpoints/${endpointId}`, { method: 'PATCH', token: tokens.a, json: { events: ['quote.approved', 'work_order.completed'], description: 'ERP' } })).status).toBe(200);
    // Sending the same values again changes nothing, so it records nothing.
    expect((await api.request(`/api/v1/webhook-endpoints/${endpointId}`, { method: 'PATCH', token: tokens.a, json: { description: 'ERP' } })).status).toBe(200);
    const rotated = await api.request(`/api/v1/webhook-endpoints/${endpointId}/rotate-secret`, { method: 'POST', token: tokens.a });
    expect(rotated.status).toBe(200);
    const secrets = [endpoint.secret, ((await rotated.json()) as { secret: string }).secret];
    expect((await api.request(`/api/v1/webhook-endpoints/${endpointId}`, { method: 'DELETE', token: tokens.a })).status).toBe(204);
    const dump = JSON.stringify((await owner.query(`select * from audit_events where organization_id = $1`, [a.id])).rows);
    for (const secret of secrets) expect(dump).not.toContain(secret);
  });

  it("records each change to a webhook endpoint with its fields, its actor and request id, newest first, never the secret", async () => {
    const { status, body } = await list(`/api/v1/audit-events?entity_type=webhook_endpoint&entity_id=${endpointId}`, tokens.a);
    expect(status).toBe(200);
    expect(body.data.map((event) => event.action)).toEqual(['webhook_endpoint.deleted', 'webhook_endpoint.secret_rotated', 'webhook_endpoint.updated', 'webhook_endpoint.created']);
    const [deleted, rotated, updated, created] = body.data;
    expect(created!.changes).toEqual(
      expect.arrayContaining([
        { field: 'url', before: null, after: 'http://127.0.0.1:9/hooks' },
        { field: 'events', before: null, after: ['quote.approved'] },
      ]),
    );
    expect(updated!.changes).toEqual([
      { field: 'events', before: ['quote.approved'], after: ['quote.approved', 'work_order.completed'] },
      { field: 'description', before: null, after: 'ERP' },
    ]);
    expect(rotated!.changes).toEqual([]);
    expect(deleted!.changes).toEqual(expect.arrayContaining([{ field: 'url', before: 'http://127.0.0.1:9/hooks', after: null }]));
    for (const event of body.data) {
      expect(event.actor).toEqual({ type: 'user', id: a.users.admin!.id, email: a.users.admin!.email });
      expect(event.request_id).toEqual(expect.any(String));
    }
  });

  it('narrows by actor, action and since, and refuses filters outside their bounds at their parameter', async () => {
    const byActor = await list(`/api/v1/audit-events?actor_id=${a.users.admin!.id}`, tokens.a);
    expect(byActor.body.data.length).toBeGreaterThanOrEqual(4);
    expect(byActor.body.data.every((event) => (event.actor as { id: string }).id === a.users.admin!.id)).toBe(true);
    const byAction = await list('/api/v1/audit-events?action=webhook_endpoint.secret_rotated', tokens.a);
    expect(byAction.body.data.map((event) => event.entity_id)).toEqual([endpointId]);
    const future = await list(`/api/v1/audit-events?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, tokens.a);
    expect(future.body.data).toEqual([]);
    for (const query of ['action=user.deleted_everything', 'entity_type=quote', 'actor_id=nope', 'limit=0', 'since=yesterday']) {
      const refused = await api.request(`/api/v1/audit-events?${query}`, { token: tokens.a });
      expect({ query, status: refused.status }).toEqual({ query, status: 422 });
    }
  });

  it('pages by Link through every event exactly once', async () => {
    const all = (await list('/api/v1/audit-events?limit=100', tokens.a)).body.data.map((event) => event.id);
    const seen: unknown[] = [];
    let next: string | null = `${api.url}/api/v1/audit-events?limit=2`;
    while (next) {
      const res = await fetch(next, { headers: { authorization: `Bearer ${tokens.a}`, 'x-forwarded-for': api.clientAddress } });
      seen.push(...((await res.json()) as { data: Array<{ id: string }> }).data.map((event) => event.id));
      next = nextLink(res);
    }
    expect(seen).toEqual(all);
  });

  it("is the ADMIN's alone, and one tenant's ADMIN never reads another's events (from both tenants)", async () => {
    expect((await api.request('/api/v1/audit-events', { token: tokens.aSales })).status).toBe(403);
    const fromB = await list(`/api/v1/audit-events?entity_id=${endpointId}`, tokens.b);
    expect(fromB.body.data).toEqual([]);
    await inTenant(api.orm.em.fork(), b.id, (tx) =>
      recordAuditEvent(tx, b.id, { actor: { type: 'operator', id: null, email: null }, action: 'organization.plan_changed', entityType: 'organization', entityId: b.id, changes: [{ field: 'plan', before: 'starter', after: 'growth' }], requestId: null }),
    );
    const fromA = await list(`/api/v1/audit-events?entity_id=${b.id}`, tokens.a);
    expect(fromA.body.data).toEqual([]);
    expect((await list(`/api/v1/audit-events?entity_id=${b.id}`, tokens.b)).body.data).toHaveLength(1);
  });
});

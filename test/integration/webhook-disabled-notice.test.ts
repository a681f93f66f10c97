import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { randomBytes } from 'node:crypto';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { startTemporalHarness, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { WebhookReceiver } from '../../scripts/harness/webhook-receiver';
import { startMailCatcher, type MailCatcher } from '../../scripts/infra/mail-catcher';
import { CredentialCipher } from '../../db/security/credential-cipher';
import { deliverySettled } from '../support/delivery-settled';
import { smtpMailer, type Mailer } from '../../infra/email/mailer';
import { sendEndpointDisabledNotice } from '../../activities/webhooks/disabled-notice';
import { WebhookEndpointList, WebhookEndpointWithSecret } from '../../api/webhooks/schemas';
import { Organization } from '../../api/organization/schemas';

/**
 * D13: when an endpoint is disabled, one email goes to the tenant's technical contact, naming the
 * endpoint, the failures and how to re-enable it; never one per attempt. Sent through a real SMTP
 * server (the mail catcher `npm start` runs) and read back through its API.
 */
const KEY = randomBytes(32).toString('base64');
const BASE_URL = 'http://127.0.0.1:3999';
let owner: pg.Pool;
let temporal: TemporalHarness;
let api: ApiHarness;
let catcher: MailCatcher;
let mailer: Mailer;
let tenant: Tenant;
let admin: string;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  owner = ownerPool();
  catcher = await startMailCatcher();
  mailer = smtpMailer(catcher.smtpUrl, 'Shade Office <no-reply@shade-office.invalid>');
  temporal = await startTemporalHarness();
  await temporal.startWorker({ webhooks: { cipher: new CredentialCipher(KEY), allowPrivateNetworks: true, mailer, publicBaseUrl: BASE_URL } });
  api = await startApi({ events: temporal.dispatcher, env: { CREDENTIAL_ENCRYPTION_KEY: KEY, OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' } });
  // Two administrators: the first one's email is the default technical contact.
  tenant = await createTenant(owner, { admin: 'ADMIN', admin2: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN' });
  admin = await api.tokenFor(tenant.users.admin!);
}, 120_000);
afterAll(async () => {
  for (const r of receivers) await r.close();
  await api.close();
  await temporal.close();
  mailer.close();
  await catcher.stop();
  await owner.end();
});

async function failingEndpoint(): Promise<{ id: string; url: string; receiver: WebhookReceiver }> {
  const receiver = await new WebhookReceiver().start();
  receivers.push(receiver);
  receiver.script(...Array.from({ length: 20 }, () => ({ status: 503, body: 'upstream is down' })));
  const res = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json: { url: receiver.url, events: ['*'], description: 'ERP' } });
  expect(res.status).toBe(201);
  const endpoint = WebhookEndpointWithSecret.parse(await res.json());
  return { id: endpoint.id, url: endpoint.url, receiver };
}

/** A real change through the API that emits work_order.dispatched; resolves once its delivery to `endpointId` settled. */
async function dispatchAndSettle(endpointId: string): Promise<void> {
  const created = await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: { assignedTechnicianId: tenant.users.tech!.id } });
  const id = ((await created.json()) as { id: string }).id;
  expect((await api.request(`/api/v1/work-orders/${id}/status`, { method: 'PATCH', token: admin, json: { status: 'DISPATCHED' } })).status).toBe(200);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { rows } = await owner.query<{ event_id: string; status: string; series: number }>(
      `select d.event_id, d.status, d.series from webhook_deliveries d join outbox_events o on o.id = d.event_id
        where d.endpoint_id = $1 and o.envelope->'data'->>'work_order_id' = $2`,
      [endpointId, id],
    );
    const row = rows[0];
    if (row && row.status === 'pending') {
      await deliverySettled(owner, { endpointId, eventId: row.event_id, series: row.series });
      return;
    }
    if (row) return; // missed at once: the endpoint was disabled
    if (Date.now() > deadline) throw new Error('no delivery was created');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const mailTo = async (address: string) => (await catcher.messages()).filter((m) => m.to.some((to) => to.address === address));
const endpointStatus = async (id: string) => WebhookEndpointList.parse(await (await api.request('/api/v1/webhook-endpoints', { token: admin })).json()).data.find((e) => e.id === id)!;

describe('GET/PATCH /api/v1/organization: the technical contact (D13)', () => {
  it("defaults to the first ADMIN's email; an ADMIN sets it and clears it; other roles are refused", async () => {
    const other = await createTenant(owner, { first: 'ADMIN', second: 'ADMIN', sales: 'SALES' });
    const token = await api.tokenFor(other.users.first!);
    const read = async () => {
      const res = await api.request('/api/v1/organization', { token });
      expect(res.status).toBe(200);
      return Organization.parse(await res.json());
    };
    expect(await read()).toMatchObject({ id: other.id, name: `Test ${other.subdomain}`, subdomain: other.subdomain, technical_contact_email: other.users.first!.email, technical_contact_is_default: true });

    const set = await api.request('/api/v1/organization', { method: 'PATCH', token, json: { technical_contact_email: 'ops@contractor.example' } });
    expect(set.status).toBe(200);
    expect(Organization.parse(await set.json())).toMatchObject({ technical_contact_email: 'ops@contractor.example', technical_contact_is_default: false });
    expect((await read()).technical_contact_email).toBe('ops@contractor.example');

    const cleared = await api.request('/api/v1/organization', { method: 'PATCH', token, json: { technical_contact_email: null } });
    expect(Organization.parse(await cleared.json())).toMatchObject({ technical_contact_email: other.users.first!.email, technical_contact_is_default: true });

    const sales = await api.tokenFor(other.users.sales!);
    expect((await api.request('/api/v1/organization', { token: sales })).status).toBe(403);
    expect((await api.request('/api/v1/organization', { method: 'PATCH', token: sales, json: { technical_contact_email: 'x@y.example' } })).status).toBe(403);
    // Another tenant's setting is not this one's.
    expect((await (await api.request('/api/v1/organization', { token: admin })).json()) as { id: string }).toMatchObject({ id: tenant.id });
  });

  it('a technical contact that is not an email is a 422 in the error envelope, and nothing is stored', async () => {
    const other = await createTenant(owner, { first: 'ADMIN' });
    const token = await api.tokenFor(other.users.first!);
    for (const bad of ['not-an-email', 'ops@', '@example.com', 'ops example.com', '', 42, `${'a'.repeat(320)}@example.com`]) {
      const res = await api.request('/api/v1/organization', { method: 'PATCH', token, json: { technical_contact_email: bad } });
      const body = (await res.json()) as { error: { code: string; message: string; details: { fields: Record<string, string> }; request_id: string } };
      expect({ bad, status: res.status, code: body.error.code }).toEqual({ bad, status: 422, code: 'validation_failed' });
      expect(body.error.details.fields.technical_contact_email).toBeTruthy();
    }
    for (const bad of [{}, { technical_contact_email: 'ops@example.com', name: 'Other' }]) {
      const res = await api.request('/api/v1/organization', { method: 'PATCH', token, json: bad });
      expect({ bad, status: res.status }).toEqual({ bad, status: 422 });
    }
    const { rows } = await owner.query('select technical_contact_email from organizations where id = $1', [other.id]);
    expect(rows[0].technical_contact_email).toBeNull();
  });
});

describe('the email when an endpoint is disabled (D13)', () => {
  it('one email to the technical contact, naming the endpoint, the failures and how to re-enable; none for later attempts or events', async () => {
    const endpoint = await failingEndpoint();
    // 72 hours of failures already behind it: the next failed attempt disables it (D6).
    await owner.query(`update webhook_endpoints set failing_since = now() - interval '73 hours' where id = $1`, [endpoint.id]);
    await dispatchAndSettle(endpoint.id);
    const disabled = await endpointStatus(endpoint.id);
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'failing for 72 hours' });
    expect(disabled.disabled_at).not.toBeNull();

    // More events while disabled: kept as missed, and no more mail.
    await dispatchAndSettle(endpoint.id);
    await dispatchAndSettle(endpoint.id);
    const contact = tenant.users.admin!.email;
    const mails = await mailTo(contact);
    expect(mails).toHaveLength(1);
    expect(await mailTo(tenant.users.admin2!.email)).toHaveLength(0);
    const [mail] = mails;
    expect(mail!.subject).toBe(`Webhook endpoint disabled: ${endpoint.url}`);
    expect(mail!.from[0]!.address).toBe('no-reply@shade-office.invalid');
    expect(mail!.headers['message-id']).toBe(`<webhook-endpoint-disabled.${endpoint.id}.${new Date(disabled.disabled_at!).getTime()}@shade-office>`);
    expect(mail!.text).toContain(`Endpoint       ${endpoint.url}`);
    expect(mail!.text).toContain(`Endpoint id    ${endpoint.id}`);
    expect(mail!.text).toContain('Why            failing for 72 hours');
    expect(mail!.text).toMatch(/work_order\.dispatched \(event [0-9a-f-]{36}\), attempt 1: HTTP 503/);
    expect(mail!.text).toContain(`${BASE_URL}/developer/webhooks`);
    expect(mail!.text).toContain(`PATCH ${BASE_URL}/api/v1/webhook-endpoints/${endpoint.id} with {"status": "enabled"}`);
    expect(endpoint.receiver.received).toHaveLength(1);

    // D22: the disabling is in the audit log, by the system, in the transaction that made it; once.
    const { rows: audit } = await owner.query('select actor_type, actor_id, actor_email, action, changes, request_id from audit_events where entity_id = $1 order by occurred_at, id', [endpoint.id]);
    expect(audit.map((a: { action: string }) => a.action)).toEqual(['webhook_endpoint.created', 'webhook_endpoint.updated']);
    expect(audit[1]).toEqual({
      actor_type: 'system',
      actor_id: null,
      actor_email: null,
      action: 'webhook_endpoint.updated',
      changes: [
        { field: 'status', before: 'enabled', after: 'disabled' },
        { field: 'disabled_reason', before: null, after: 'failing for 72 hours' },
      ],
      request_id: null,
    });

    // The activity again for the same disabling (a retry, a second worker): no second email.
    const again = await sendEndpointDisabledNotice({ em: temporal.orm.em, mailer, baseUrl: BASE_URL }, { organizationId: tenant.id, endpointId: endpoint.id, disabledAt: disabled.disabled_at! });
    expect(again).toEqual({ status: 'already_sent' });
    expect(await mailTo(contact)).toHaveLength(1);
    const { rows } = await owner.query('select recipient from webhook_endpoint_notices where endpoint_id = $1', [endpoint.id]);
    expect(rows).toEqual([{ recipient: contact }]);
  });

  it('a later disabling is a new email, to the contact set meanwhile; a disabling that is over sends none', async () => {
    const endpoint = await failingEndpoint();
    await owner.query(`update webhook_endpoints set failing_since = now() - interval '73 hours' where id = $1`, [endpoint.id]);
    await dispatchAndSettle(endpoint.id);
    const first = await endpointStatus(endpoint.id);
    expect(first.status).toBe('disabled');

    expect((await api.request('/api/v1/organization', { method: 'PATCH', token: admin, json: { technical_contact_email: 'oncall@contractor.example' } })).status).toBe(200);
    const enabled = await api.request(`/api/v1/webhook-endpoints/${endpoint.id}`, { method: 'PATCH', token: admin, json: { status: 'enabled' } });
    expect(enabled.status).toBe(200);
    // Re-enabling is over the first disabling: its notice, if it ran now, would send nothing.
    expect(await sendEndpointDisabledNotice({ em: temporal.orm.em, mailer, baseUrl: BASE_URL }, { organizationId: tenant.id, endpointId: endpoint.id, disabledAt: first.disabled_at! })).toEqual({
      status: 'no_longer_disabled',
    });
    // Let the replays of what it missed fail out, then 72 hours of failures once more.
    const deadline = Date.now() + 20_000;
    while ((await owner.query(`select 1 from webhook_deliveries where endpoint_id = $1 and status = 'pending'`, [endpoint.id])).rowCount! > 0) {
      if (Date.now() > deadline) throw new Error('replays did not settle');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if ((await endpointStatus(endpoint.id)).status === 'enabled') {
      await owner.query(`update webhook_endpoints set failing_since = now() - interval '73 hours' where id = $1`, [endpoint.id]);
      await dispatchAndSettle(endpoint.id);
    }
    const second = await endpointStatus(endpoint.id);
    expect(second.status).toBe('disabled');
    expect(second.disabled_at).not.toBe(first.disabled_at);
    const mails = await mailTo('oncall@contractor.example');
    expect(mails.filter((m) => m.text.includes(endpoint.id))).toHaveLength(1);
    expect(mails[0]!.headers['message-id']).toContain(String(new Date(second.disabled_at!).getTime()));
    expect(await mailTo(tenant.users.admin!.email).then((all) => all.filter((m) => m.text.includes(endpoint.id)))).toHaveLength(1);
  });
});

import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { randomBytes } from 'node:crypto';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { startTemporalHarness, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { WebhookReceiver } from '../../scripts/harness/webhook-receiver';
import { CredentialCipher } from '../../db/security/credential-cipher';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { SANDBOX_PRODUCTS } from '../../db/catalogue/sandbox-products';
import { V1Quote } from '../../api/v1/quotes/schemas';
import { VersionList } from '../../api/versions/routes';

// D16: dated versions on requests, responses and webhook payloads.
const KEY = randomBytes(32).toString('base64');
let owner: pg.Pool;
let temporal: TemporalHarness;
let api: ApiHarness;
let receiver: WebhookReceiver;

interface V1Tenant {
  tenant: Tenant;
  admin: string;
  customerId: string;
}

async function v1Tenant(pinned?: string): Promise<V1Tenant> {
  const tenant = await createTenant(owner, { admin: 'ADMIN' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  if (pinned) await owner.query('update organizations set api_version = $2 where id = $1', [tenant.id, pinned]);
  for (const p of SANDBOX_PRODUCTS) {
    await owner.query('insert into catalogue_products (organization_id, sku, name, fabric_sku_code, hardware_sku_code, trim_sku_code) values ($1, $2, $3, $4, $5, $6)', [
      tenant.id, p.sku, p.name, p.fabricSkuCode, p.hardwareSkuCode, p.trimSkuCode ?? null,
    ]);
  }
  const { rows } = await owner.query<{ id: string }>(`insert into customers (organization_id, name) values ($1, 'Jordan Rivera') returning id`, [tenant.id]);
  return { tenant, admin: await api.tokenFor(tenant.users.admin!), customerId: rows[0]!.id };
}

const quoteBody = (t: V1Tenant) => ({
  customerId: t.customerId,
  currency: 'CAD',
  taxRegion: 'CA-BC',
  pricebookId: t.tenant.id,
  lines: [{ sku: 'ROLLER-SCREEN-CASSETTE', quantity: 2, configuration: { finishedWidthIn: 60, finishedHeightIn: 72, controlSide: 'right', motorised: false } }],
});

const postQuote = (t: V1Tenant, version?: string) =>
  api.request('/v1/quotes', { method: 'POST', token: t.admin, json: quoteBody(t), headers: version ? { 'Service-Version': version } : {} });

beforeAll(async () => {
  owner = ownerPool();
  temporal = await startTemporalHarness();
  await temporal.startWorker({ webhooks: { cipher: new CredentialCipher(KEY), allowPrivateNetworks: false, allowLoopback: true, timeoutMs: 1500 } });
  api = await startApi({ events: temporal.dispatcher, env: { CREDENTIAL_ENCRYPTION_KEY: KEY, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' } });
  receiver = await new WebhookReceiver().start();
}, 120_000);
afterAll(async () => {
  await receiver.close();
  await api.close();
  await temporal.close();
  await owner.end();
});

/** The changelog table of document 000 section 9 (the specification beside the checkout, `../shared/spec`). */
function changelogOfTheSpecification(): [string, string][] {
  const folder = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'spec');
  const file = readdirSync(folder).find((name) => name.startsWith('000_'));
  if (!file) throw new Error(`document 000 is not in ${folder}`);
  const text = readFileSync(join(folder, file), 'utf8');
  const section = text.slice(text.indexOf('## 9.'), text.indexOf('## 10.'));
  return [...section.matchAll(/^\| (\d{4}-\d{2}-\d{2}) \| (.+) \|$/gm)].map((row) => [row[1]!, row[2]!]);
}

describe('GET /api/versions (D16)', () => {
  it('lists every version with its changes, the current one, and until when each is supported (no token)', async () => {
    const res = await api.request('/api/versions');
    expect(res.status).toBe(200);
    const list = VersionList.parse(await res.json());
    expect(list.current).toBe('2026-07-01');
    expect(list.data.map((v) => [v.version, v.current, v.supported_until, v.retired])).toEqual([
      ['2026-07-01', true, null, false],
      ['2026-04-15', false, '2027-07-01', false],
      ['2026-01-20', false, '2027-04-15', false],
      ['2025-10-08', false, '2027-01-20', false],
      ['2025-06-03', false, '2026-10-08', true],
    ]);
    expect(list.data.every((v) => v.changes.length > 0)).toBe(true);
    // Every row of document 000 section 9's changelog, as the document words it, read from the document itself.
    expect(list.data.map((v) => [v.version, v.changelog])).toEqual(changelogOfTheSpecification());
    // The OpenAPI document says which version it describes.
    const doc = (await (await api.request('/openapi.json')).json()) as { info: Record<string, unknown> };
    expect(doc.info['x-service-version']).toBe('2026-07-01');
    expect(String(doc.info.description)).toContain('2026-07-01');
  });
});

describe('Service-Version on requests and responses (D16)', () => {
  it('the same request at 2026-07-01, 2026-04-15 and 2026-01-20 answers three shapes', async () => {
    const t = await v1Tenant();
    const shapes = [];
    for (const version of ['2026-07-01', '2026-04-15', '2026-01-20']) {
      const res = await postQuote(t, version);
      expect(res.status).toBe(201);
      expect(res.headers.get('service-version')).toBe(version);
      const body = (await res.json()) as Record<string, unknown> & { id: string; lines: Record<string, unknown>[] };
      shapes.push(body);
      // Reading it back answers the same shape.
      const read = await api.request(`/v1/quotes/${body.id}`, { token: t.admin, headers: { 'Service-Version': version } });
      expect(await read.json()).toEqual(body);
    }
    const [current, april, january] = shapes;
    V1Quote.parse(current);
    expect(current!.lines[0]!.deduction).toBe(1.125);
    expect(current!.pricebookRevision).toEqual(expect.any(String));
    expect(april!.lines[0]!.deduction).toEqual({ tubeIn: 1.125, hembarIn: 1.375, fabricIn: 1.5 });
    expect(april!.pricebookRevision).toBe(current!.pricebookRevision);
    expect(january!.lines[0]!.deduction).toEqual(april!.lines[0]!.deduction);
    expect('pricebookRevision' in january!).toBe(false);
    // Everything else is the same answer.
    const strip = ({ id: _i, reference: _r, createdAt: _c, pricebookRevision: _p, lines, ...rest }: Record<string, unknown> & { lines: Record<string, unknown>[] }) => ({
      ...rest, lines: lines.map(({ deduction: _d, ...line }) => line),
    });
    expect(strip(january!)).toEqual(strip(current!));
  });

  it('without the header the tenant’s pinned version applies; a tenant is pinned at its first request', async () => {
    const fresh = await v1Tenant();
    expect((await owner.query('select api_version from organizations where id = $1', [fresh.tenant.id])).rows[0].api_version).toBeNull();
    const me = await api.request('/api/v1/auth/me', { token: fresh.admin });
    expect(me.headers.get('service-version')).toBe('2026-07-01');
    expect((await owner.query('select api_version from organizations where id = $1', [fresh.tenant.id])).rows[0].api_version).toBe('2026-07-01');

    const older = await v1Tenant('2026-01-20');
    const res = await postQuote(older);
    expect(res.headers.get('service-version')).toBe('2026-01-20');
    expect('pricebookRevision' in ((await res.json()) as object)).toBe(false);
    // A request may still ask for another version.
    const asked = await postQuote(older, '2026-07-01');
    expect(asked.headers.get('service-version')).toBe('2026-07-01');
    expect(((await asked.json()) as { pricebookRevision?: string }).pricebookRevision).toEqual(expect.any(String));
  });

  it('every answer under /api/v1 and /v1 says its version, a 401 included', async () => {
    for (const path of ['/api/v1/quotes', '/v1/quotes/00000000-0000-4000-8000-000000000000', '/api/v1/nope', '/v1/nope']) {
      const res = await api.request(path);
      expect([path, res.status, res.headers.get('service-version')]).toEqual([path, 401, '2026-07-01']);
    }
    const t = await v1Tenant();
    const missing = await api.request('/v1/quotes/00000000-0000-4000-8000-000000000000', { token: t.admin, headers: { 'Service-Version': '2026-04-15' } });
    expect([missing.status, missing.headers.get('service-version')]).toEqual([404, '2026-04-15']);
  });

  it.each([
    ['malformed', 'yesterday'],
    ['not a calendar date', '2026-02-30'],
    ['unknown', '2026-05-05'],
    ['in the future', '2027-03-01'],
    ['retired', '2025-06-03'],
  ])('a %s Service-Version is 400 in each interface’s shape, and nothing is written or drawn', async (_what, version) => {
    const t = await v1Tenant();
    const onApi = await api.request('/api/v1/auth/me', { token: t.admin, headers: { 'Service-Version': version } });
    expect(onApi.status).toBe(400);
    const envelope = (await onApi.json()) as { error: { code: string; message: string } };
    expect(envelope.error.code).toBe('bad_request');
    expect(envelope.error.message).toMatch(/Service-Version/);
    expect((envelope.error as { details?: unknown }).details).toEqual({ fields: { 'Service-Version': envelope.error.message } });

    const onV1 = await postQuote(t, version);
    expect(onV1.status).toBe(400);
    expect(onV1.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await onV1.json()) as { type: string; detail: string; errors: Record<string, string> };
    expect(problem.type).toBe('validation-failed');
    // The problem names what was malformed: the header, with the reason.
    expect(problem.errors).toEqual({ 'Service-Version': problem.detail });
    expect(problem.errors['Service-Version']).toMatch(/Service-Version/);
    const { rows } = await owner.query(
      `select (select count(*)::int from quotes where organization_id = $1) as quotes, (select count(*)::int from plan_buckets where organization_id = $1) as buckets`,
      [t.tenant.id],
    );
    expect(rows[0]).toEqual({ quotes: 0, buckets: 0 });
  });
});

describe('webhook payloads (D16)', () => {
  it('an endpoint pinned to an old version receives the old shape; one registered now, the current', async () => {
    const t = await v1Tenant();
    // D13: quote.created goes to endpoints of the events (or field) format; this one sends document 001 section 6.2's envelope.
    const register = async (version?: string) => {
      const res = await api.request('/api/v1/webhook-endpoints', {
        method: 'POST', token: t.admin, json: { url: receiver.url, format: 'events', events: ['quote.created'] }, headers: version ? { 'Service-Version': version } : {},
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: string }).id;
    };
    const old = await register('2026-01-20');
    const now = await register();
    const pins = await owner.query<{ id: string; api_version: string }>('select id, api_version from webhook_endpoints where organization_id = $1', [t.tenant.id]);
    expect(Object.fromEntries(pins.rows.map((r) => [r.id, r.api_version]))).toEqual({ [old]: '2026-01-20', [now]: '2026-07-01' });

    const quote = (await (await postQuote(t)).json()) as { id: string; pricebookRevision: string };
    const received = await receiver.waitFor(2);
    type Delivered = { type: string; apiVersion: string; data: { object: Record<string, unknown> } };
    const bodies = received.map((r) => JSON.parse(r.body) as Delivered);
    for (const body of bodies) expect(body).toMatchObject({ type: 'quote.created', data: { object: { id: quote.id, revision: 1 } } });
    const byVersion = Object.fromEntries(bodies.map((b) => [b.apiVersion, b.data.object]));
    expect(Object.keys(byVersion).sort()).toEqual(['2026-01-20', '2026-07-01']);
    expect('pricebookRevision' in byVersion['2026-01-20']!).toBe(false);
    expect(byVersion['2026-07-01']!.pricebookRevision).toBe(quote.pricebookRevision);
    // The event is stored once, in the current shape; each endpoint's attempt logged what it was sent.
    const logged = () =>
      owner.query<{ endpoint_id: string; request_body: string }>(
        `select d.endpoint_id, a.request_body from webhook_delivery_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.organization_id = $1`,
        [t.tenant.id],
      );
    // The attempt is logged just after the receiver answered it.
    let attempts = await logged();
    for (let i = 0; i < 100 && attempts.rows.length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      attempts = await logged();
    }
    const sent = Object.fromEntries(attempts.rows.map((r) => [r.endpoint_id, JSON.parse(r.request_body) as Delivered]));
    expect('pricebookRevision' in sent[old]!.data.object).toBe(false);
    expect(sent[now]!.data.object.pricebookRevision).toBe(quote.pricebookRevision);
  }, 60_000);
});

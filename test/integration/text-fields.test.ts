import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool } from '../../scripts/harness/owner-db';
import { twoWindows } from '../../scripts/harness/quote-requests';
import { example, stringPaths, withStringAt, type JsonSchema, type OpenApiDocument } from '../support/schema-examples';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { SANDBOX_PRODUCTS } from '../../db/catalogue/sandbox-products';
import { LONE_SURROGATE_COMPLAINT, NUL_COMPLAINT } from '../../api/http/validate';

/**
 * A NUL character, or a lone UTF-16 surrogate, in a text field is a 500 from the database driver
 * unless refused first (the one string rule, domain/text/storable-text.ts). Every string field of
 * every JSON request body in the OpenAPI document (the route table's own schemas) is sent, one at
 * a time, in an otherwise valid body, holding each: each is a 422 naming its path.
 */
let owner: pg.Pool;
let api: ApiHarness;
let token: string;
let doc: OpenApiDocument;
/** Real ids for path parameters, so each request gets as far as the database. */
let pathIds: Record<string, string>;
/** Values that make the examples pass the service's own checks too (catalogue codes, a technician). */
let hints: Record<string, unknown>;

beforeAll(async () => {
  owner = ownerPool();
  // Webhook URLs resolve to loopback (injected: nothing is looked up, nothing is called), which
  // this API allows as tests do, so a registration reaches the database.
  api = await startApi({
    resolver: async () => [{ address: '127.0.0.1', family: 4 }],
    env: { CREDENTIAL_ENCRYPTION_KEY: 'k'.repeat(44), OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' },
  });
  const tenant = await createTenant(owner, { admin: 'ADMIN', tech: 'TECHNICIAN' });
  // Three walks over every operation draw more /v1/ requests than a starter plan's bucket holds (D15).
  await owner.query(`update organizations set plan = 'enterprise' where id = $1`, [tenant.id]);
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  token = await api.tokenFor(tenant.users.admin!);
  doc = (await (await api.request('/openapi.json')).json()) as OpenApiDocument;

  const quote = (await (await api.request('/api/v1/quotes/calculate', { method: 'POST', token, json: twoWindows({ persist: true }) })).json()) as { quote_id: string };
  const workOrder = (await (await api.request('/api/v1/work-orders', { method: 'POST', token, json: {} })).json()) as { id: string };
  // D14: a catalogue and a customer for /v1/quotes, and a quote of it to revise.
  for (const p of SANDBOX_PRODUCTS) {
    await owner.query('insert into catalogue_products (organization_id, sku, name, fabric_sku_code, hardware_sku_code, trim_sku_code) values ($1, $2, $3, $4, $5, $6)', [
      tenant.id, p.sku, p.name, p.fabricSkuCode, p.hardwareSkuCode, p.trimSkuCode ?? null,
    ]);
  }
  const customerId = ((await owner.query<{ id: string }>(`insert into customers (organization_id, name) values ($1, 'NUL check') returning id`, [tenant.id])).rows[0]!).id;
  const v1Quote = (await (
    await api.request('/v1/quotes', {
      method: 'POST', token,
      json: { customerId, currency: 'CAD', taxRegion: 'CA-ON', pricebookId: tenant.id, lines: [{ sku: 'ROLLER-SCREEN', quantity: 1, configuration: { finishedWidthIn: 40, finishedHeightIn: 50, controlSide: 'left', motorised: false } }] },
    })
  ).json()) as { id: string };
  const endpoint = (await (await api.request('/api/v1/webhook-endpoints', { method: 'POST', token, json: { url: 'https://hooks.invalid/a', events: ['*'] } })).json()) as { id: string };
  pathIds = {
    '/api/v1/quotes/{id}/checkout-session': quote.quote_id,
    '/api/v1/work-orders/{id}/status': workOrder.id,
    '/api/v1/webhook-endpoints/{id}': endpoint.id,
    '/v1/quotes/{id}/revisions': v1Quote.id,
  };
  hints = {
    laborTierCode: 'STANDARD',
    fabricSkuCode: 'FAB-SCREEN-3',
    hardwareSkuCode: 'HW-ROLLER-STD',
    motorSkuCode: 'MTR-BATTERY',
    trimSkuCode: 'TRIM-CASSETTE',
    widthInches: 36,
    dropInches: 48,
    persist: true,
    quoteId: quote.quote_id,
    assignedTechnicianId: tenant.users.tech!.id,
    // A crew's people must be active technicians of the tenant.
    foreman_id: tenant.users.tech!.id,
    member_ids: [],
    // D13: an endpoint's events are names of its format's catalogue, or ["*"].
    events: ['*'],
    customerId,
    pricebookId: tenant.id,
    sku: 'ROLLER-SCREEN',
    finishedWidthIn: 36,
    finishedHeightIn: 48,
    motorised: true,
    motorSku: 'MTR-BATTERY',
    // D11: the workspace's time zone is an IANA name.
    time_zone: 'America/Toronto',
    // D23: a working day ends after it starts.
    weekly: [{ day: 'mon', start: '08:00', end: '17:00', break_minutes: 30 }],
    // A plan that stores nothing (this stack runs no worker).
    dry_run: true,
    window_start: '09:00',
    window_end: '12:00',
  };
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

const UUID = '6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10';
/** D23: the routes of a day take a date beside an id. */
const DATED_PATHS: Record<string, string> = {
  '/v1/fsm/routes/{date}/{crew_id}': `/v1/fsm/routes/2026-12-03/${UUID}`,
  '/v1/fsm/routes/{date}/plan': '/v1/fsm/routes/2026-12-03/plan',
};

function bodyOperations() {
  const operations: { method: string; path: string; url: string; schema: JsonSchema }[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const body = operation.requestBody?.content?.['application/json'];
      // The payments webhook's body is the provider's signed event: it is refused by its signature
      // before any field is read (payments.test.ts covers NUL in a signed event's ids).
      if (path === '/api/v1/integrations/payments/webhook') continue;
      if (body) operations.push({ method: method.toUpperCase(), path, url: DATED_PATHS[path] ?? path.replace(/\{[^}]+\}/g, pathIds[path] ?? UUID), schema: body.schema });
    }
  }
  return operations;
}

/** The example with each hinted key, wherever it appears, set to its hint. */
function withHints(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withHints);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, key in hints ? hints[key] : withHints(v)]));
}

/** Each way text can be unstorable, spliced after a string's first character, and its complaint. */
const UNSTORABLE = [
  { name: 'a NUL character', insert: '\u0000', complaint: NUL_COMPLAINT },
  { name: 'a lone high surrogate', insert: '\ud800', complaint: LONE_SURROGATE_COMPLAINT },
  { name: 'a lone low surrogate', insert: '\udfff', complaint: LONE_SURROGATE_COMPLAINT },
];

describe.each(UNSTORABLE)('$name in text fields', ({ insert, complaint: expected }) => {
  it('is refused with 422 and the dotted path in every string field of every request body', async () => {
    const operations = bodyOperations();
    // Section 4's bodies at least: login, calculate, work orders (2), checkout, webhook endpoints (2).
    expect(operations.length).toBeGreaterThanOrEqual(7);
    const answers: { field: string; status: number; complaint: string | undefined }[] = [];
    for (const operation of operations) {
      const schema = operation.schema;
      const valid = withHints(example(doc, schema)) as Record<string, unknown>;
      // Calculate takes a new customer or an existing one's id, not both: the new one's strings are the ones to walk.
      if (operation.path === '/api/v1/quotes/calculate') delete valid.customerId;
      const send = (body: unknown) => api.request(operation.url, { method: operation.method, token, json: body });
      // The example passes validation, so a refusal below can only be the NUL's.
      const baseline = await send(valid);
      expect({ operation: `${operation.method} ${operation.path}`, status: baseline.status }).not.toEqual({ operation: `${operation.method} ${operation.path}`, status: 422 });
      expect({ operation: `${operation.method} ${operation.path}`, status: baseline.status }).not.toEqual({ operation: `${operation.method} ${operation.path}`, status: 500 });

      const paths = stringPaths(doc, schema);
      expect(paths.length).toBeGreaterThan(0);
      for (const path of paths) {
        const res = await send(withStringAt(valid, path, (s) => `${s.slice(0, 1)}${insert}${s.slice(1)}`));
        // Section 7's envelope under /api/, D10's problem (`errors`) under /v1/, and GraphQL's own
        // errors (a request refused before execution: 400, BAD_USER_INPUT with the fields).
        const body = (await res.json()) as {
          error?: { code: string; details?: { fields: Record<string, string> } };
          errors?: Record<string, string> | { extensions?: { code?: string; fields?: Record<string, string> } }[];
        };
        const graphql = Array.isArray(body.errors) ? body.errors[0]?.extensions : undefined;
        if (graphql) expect(graphql.code).toBe('BAD_USER_INPUT');
        const complaint = graphql ? graphql.fields?.[path] : body.error?.details?.fields[path] ?? (body.errors as Record<string, string> | undefined)?.[path];
        answers.push({ field: `${operation.method} ${operation.path} ${path}`, status: res.status, complaint });
      }
    }
    expect(answers.length).toBeGreaterThanOrEqual(20);
    // All at once, so a failure lists every field that lets one through.
    expect(answers).toEqual(answers.map(({ field }) => ({ field, status: field.startsWith('POST /v1/graphql ') ? 400 : 422, complaint: expected })));
  });
});

describe('unstorable text elsewhere', () => {
  it('is refused in keys and in query strings too', async () => {
    const key = await api.request('/api/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"subdomain":"sandbox","email":"a@b.test","password":"x","e\\u0000vil":1}' });
    expect(key.status).toBe(422);
    expect(((await key.json()) as { error: { details: { fields: Record<string, string> } } }).error.details.fields['e\u0000vil']).toBe(NUL_COMPLAINT);
    const query = await api.request(`/api/v1/quotes?status=DRAFT%00`, { token });
    expect(query.status).toBe(422);
    expect(((await query.json()) as { error: { details: { fields: Record<string, string> } } }).error.details.fields.status).toBe(NUL_COMPLAINT);
  });

  it('a lone surrogate in a key is refused at its path', async () => {
    const key = await api.request('/api/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"subdomain":"sandbox","email":"a@b.test","password":"x","e\\ud800vil":1}' });
    expect(key.status).toBe(422);
    expect(((await key.json()) as { error: { details: { fields: Record<string, string> } } }).error.details.fields['e\ud800vil']).toBe(LONE_SURROGATE_COMPLAINT);
  });

  it('a well-formed pair of surrogates (an emoji) is text like any other', async () => {
    const res = await api.request('/api/v1/work-orders', { method: 'POST', token, json: { notes: 'sun blind \ud83c\udf1e' } });
    expect(res.status).toBe(201);
  });

  it('a NUL in a GraphQL variable is refused before execution, with its path', async () => {
    const res = await api.request('/v1/graphql', { method: 'POST', token, json: { query: 'query ($first: Int) { workOrders(first: $first) { nodes { id } } }', variables: { first: 1, note: 'a\u0000b' } } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: { extensions: { code: string; fields: Record<string, string> } }[]; data?: unknown };
    expect(body.errors[0]!.extensions).toEqual({ code: 'BAD_USER_INPUT', fields: { 'variables.note': NUL_COMPLAINT } });
    expect(body.data).toBeUndefined();
  });
});

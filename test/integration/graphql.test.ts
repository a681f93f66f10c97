import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant, type TenantUser } from '../../scripts/harness/owner-db';
import { twoWindows } from '../../scripts/harness/quote-requests';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { QuoteService } from '../../api/quotes/quote-service';
import { WorkOrderService } from '../../api/work-orders/work-order-service';
import { RateCardRepository } from '../../db/rate-cards/repository';
import type { Caller } from '../../api/http/request-context';
import type { CalculateBody } from '../../api/quotes/schemas';
import { MAX_QUERY_COST } from '../../api/graphql/cost';
import { LIMITS } from '../../api/graphql/limits';
import { SCHEMA_SDL } from '../../api/graphql/routes';
import { CountingBucket } from '../support/counting-bucket';
import { JobService } from '../../api/fsm/job-service';
import { ChangeOrderService } from '../../api/fsm/change-order-service';
import { ChangeOrderBody } from '../../api/fsm/schemas';

// D17: POST /v1/graphql over quotes, work orders and customers, as each role of D10, in the
// tenant's transaction, batched, costed and refused before execution when abusive.
let owner: pg.Pool;
let api: ApiHarness;
let tenant: Tenant;
let other: Tenant;
const bucket = new CountingBucket();
const tokens: Record<string, string> = {};
const quoteIds: string[] = [];
const workOrderIds: string[] = [];
let otherQuoteId: string;
let otherWorkOrderId: string;
let otherCustomerId: string;

interface GraphQLAnswer {
  data?: Record<string, any> | null;
  errors?: { message: string; path?: (string | number)[]; extensions: { code: string; [key: string]: unknown } }[];
  extensions?: { cost: { requestedQueryCost: number; actualQueryCost: number; throttleStatus: { maximumAvailable: number; currentlyAvailable: number; restoreRate: number } } };
}

async function gql(token: string | undefined, query: string, variables?: Record<string, unknown>): Promise<{ status: number; body: GraphQLAnswer }> {
  const res = await api.request('/v1/graphql', { method: 'POST', token, json: { query, variables } });
  return { status: res.status, body: (await res.json()) as GraphQLAnswer };
}
const codes = (body: GraphQLAnswer) => (body.errors ?? []).map((error) => error.extensions.code);

const callerOf = (user: TenantUser): Caller => ({ userId: user.id, organizationId: user.organizationId, role: user.role, email: user.email });
/** What this tenant has written: rows of its quotes, lines, customers and work orders. */
const tableCounts = async () =>
  (
    await owner.query<{ n: string }>(
      `select (select count(*) from quotes where organization_id = $1) + (select count(*) from work_orders where organization_id = $1)
            + (select count(*) from customers where organization_id = $1) + (select count(*) from quote_lines where organization_id = $1) as n`,
      [tenant.id],
    )
  ).rows[0]!.n;

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi({ graphqlBucket: bucket });
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN', tech2: 'TECHNICIAN' });
  other = await createTenant(owner, { admin: 'ADMIN', tech: 'TECHNICIAN' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  await giveRateCard(other.id, SANDBOX_RATE_CARD);
  for (const [name, user] of Object.entries(tenant.users)) tokens[name] = await api.tokenFor(user);
  tokens.otherAdmin = await api.tokenFor(other.users.admin!);

  // Fixtures through the services the REST routes use (no HTTP: the broad limit stays for the tests).
  const quotes = new QuoteService(api.orm.em, new RateCardRepository());
  const workOrders = new WorkOrderService(api.orm.em);
  const sales = callerOf(tenant.users.sales!);
  const admin = callerOf(tenant.users.admin!);
  for (let i = 0; i < 50; i++) {
    const body = twoWindows({ persist: true, customer: { name: `Customer ${i}`, email: `c${i}@${tenant.subdomain}.test` } }) as CalculateBody;
    const quote = await quotes.calculate(sales, body);
    quoteIds.push(quote.quote_id!);
    const technician = i < 30 ? tenant.users.tech! : tenant.users.tech2!;
    const order = await workOrders.create(admin, { quoteId: quote.quote_id!, assignedTechnicianId: technician.id, scheduledDate: '2026-12-03', siteAddress: `${i} Elm St` });
    workOrderIds.push(order.id);
  }
  // D11: what the field writes on each job (a change order, a time entry, a material draw).
  const jobs = new JobService(api.orm.em);
  const changeOrders = new ChangeOrderService(api.orm.em, new RateCardRepository());
  for (const [i, jobId] of workOrderIds.entries()) {
    await changeOrders.raise(admin, jobId, ChangeOrderBody.parse({ reason: `Add a valance to window ${i}`, labour_hours: 1.5 }));
    const technician = i < 30 ? tenant.users.tech! : tenant.users.tech2!;
    const start = new Date(Date.UTC(2026, 9, 1, 8) + i * 24 * 3600_000);
    await jobs.addTimeEntry(admin, jobId, { started_at: start.toISOString(), ended_at: new Date(start.getTime() + 2 * 3600_000).toISOString(), technician_id: technician.id });
    await jobs.addMaterialDraw(admin, jobId, { sku: 'FAB-SCREEN-3', quantity: '2.5' });
  }
  const otherQuote = await quotes.calculate(callerOf(other.users.admin!), twoWindows({ persist: true, customer: { name: 'Other tenant customer', email: 'x@other.test' } }) as CalculateBody);
  otherQuoteId = otherQuote.quote_id!;
  otherWorkOrderId = (await workOrders.create(callerOf(other.users.admin!), { quoteId: otherQuoteId, assignedTechnicianId: other.users.tech!.id })).id;
  otherCustomerId = (await owner.query<{ customer_id: string }>('select customer_id from quotes where id = $1', [otherQuoteId])).rows[0]!.customer_id;
}, 120_000);

afterAll(async () => {
  await api.close();
  await owner.end();
});

describe('the endpoint', () => {
  it('is behind the /v1 bearer guard: no token is a 401 problem (D10)', async () => {
    const res = await api.request('/v1/graphql', { method: 'POST', json: { query: '{ workOrders { nodes { id } } }' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('publishes its SDL to callers with a token', async () => {
    const res = await api.request('/v1/graphql/schema.graphql', { token: tokens.tech });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe(SCHEMA_SDL);
    expect((await api.request('/v1/graphql/schema.graphql')).status).toBe(401);
  });

  it('serves GraphiQL outside production with every asset from this deployment', async () => {
    const page = await api.request('/v1/graphql', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!).filter((source) => source !== 'data:,');
    expect(sources.length).toBeGreaterThanOrEqual(5);
    for (const source of sources) {
      expect(source.startsWith('/v1/graphql/graphiql/')).toBe(true);
      const asset = await api.request(source);
      expect(asset.status).toBe(200);
      expect((await asset.text()).length).toBeGreaterThan(10);
    }
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    // Only the page's own assets: nothing else of those packages.
    expect((await api.request('/v1/graphql/graphiql/graphiql.js')).status).toBe(404);
  });

  it('serves no GraphiQL in production (D17): its page and assets are 401 without a token and 404 with one, and the endpoint still answers', async () => {
    // Settings that production refuses are blanked; everything else is the suite's.
    const production = await startApi({ graphqlBucket: bucket, env: { NODE_ENV: 'production', OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: '', OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: '', PROVIDER_SANDBOXES: '' } });
    try {
      expect(production.settings.NODE_ENV).toBe('production');
      for (const path of ['/v1/graphql', '/v1/graphql/graphiql/graphiql.min.js', '/v1/graphql/graphiql/graphiql.min.css']) {
        const anonymous = await production.request(path, { headers: { accept: 'text/html' } });
        expect({ path, status: anonymous.status, type: anonymous.headers.get('content-type') }).toEqual({ path, status: 401, type: expect.stringMatching(/^application\/problem\+json/) });
        const withToken = await production.request(path, { token: tokens.admin, headers: { accept: 'text/html' } });
        expect({ path, status: withToken.status, type: withToken.headers.get('content-type') }).toEqual({ path, status: 404, type: expect.stringMatching(/^application\/problem\+json/) });
        expect(await withToken.text()).not.toContain('GraphiQL.createFetcher');
      }
      const answered = await production.request('/v1/graphql', { method: 'POST', token: tokens.admin, json: { query: '{ workOrders(first: 1) { nodes { id } } }' } });
      expect(answered.status).toBe(200);
      expect(((await answered.json()) as { data: { workOrders: { nodes: unknown[] } } }).data.workOrders.nodes).toHaveLength(1);
    } finally {
      await production.close();
    }
  });

  it('answers extensions.cost on every result', async () => {
    const { status, body } = await gql(tokens.admin, '{ workOrders(first: 5) { nodes { id status } pageInfo { hasNextPage endCursor } } }');
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data!.workOrders.nodes).toHaveLength(5);
    // docs/graphql.md example 1: requested 2 + 5 × 1; five work orders came back, so the same.
    expect(body.extensions!.cost).toEqual({ requestedQueryCost: 7, actualQueryCost: 7, throttleStatus: expect.objectContaining({ maximumAvailable: expect.any(Number) }) });
  });

  it('counts the actual cost from what came back, and gives the rest back to the bucket', async () => {
    const before = bucket.refunded;
    // Requested 2 + 100 × 1 = 102; the technician has 30 work orders: actual 2 + 30 = 32.
    const { body } = await gql(tokens.tech, '{ workOrders(first: 100) { nodes { id } } }');
    expect(body.data!.workOrders.nodes).toHaveLength(30);
    expect(body.extensions!.cost.requestedQueryCost).toBe(102);
    expect(body.extensions!.cost.actualQueryCost).toBe(32);
    expect(bucket.refunded - before).toBe(70);
  });
});

describe('queries from each role (D10, D4)', () => {
  const QUOTES = '{ quotes(first: 3) { nodes { id number status totalAmountCents customer { name } lines { position fabricSkuCode priceCents } } } }';

  it.each([['admin'], ['sales']])('%s reads quotes with their lines and customer', async (who) => {
    const { body } = await gql(tokens[who], QUOTES);
    expect(body.errors).toBeUndefined();
    const nodes = body.data!.quotes.nodes as { id: string; lines: unknown[]; customer: { name: string } }[];
    expect(nodes).toHaveLength(3);
    // Newest first: the last quotes made.
    expect(nodes.map((quote) => quote.id)).toEqual(quoteIds.slice(-3).reverse());
    for (const quote of nodes) {
      expect(quote.lines).toHaveLength(2);
      expect(quote.customer.name).toMatch(/^Customer \d+$/);
    }
  });

  it('answers a line\'s scalar deduction (2026-07-01, D23): the inches the tube is shorter than the width, from the quote\'s cut list', async () => {
    const { body } = await gql(tokens.admin, 'query Q($id: ID!) { quote(id: $id) { lines { position widthInches deduction } } }', { id: quoteIds[0] });
    expect(body.errors).toBeUndefined();
    const { rows } = await owner.query<{ calculation: { line_items: { cut_list: { tube_length_inches: string } }[] } }>('select calculation from quotes where id = $1', [quoteIds[0]]);
    const lines = body.data!.quote.lines as { position: number; widthInches: number; deduction: number }[];
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const tube = Number(rows[0]!.calculation.line_items[line.position]!.cut_list.tube_length_inches);
      expect(line.deduction).toBe(Number((line.widthInches - tube).toFixed(4)));
      expect(line.deduction).toBeGreaterThan(0);
    }
  });

  it.each([['admin'], ['sales']])('%s reads one quote, customers, one customer with their quotes', async (who) => {
    const { body } = await gql(
      tokens[who],
      `query Q($id: ID!) { quote(id: $id) { id reference createdBy { role } customer { id email quotes { id } } } customers(first: 2) { nodes { name } pageInfo { hasNextPage } } }`,
      { id: quoteIds[0] },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data!.quote).toMatchObject({ id: quoteIds[0], reference: expect.stringMatching(/^Q-\d+$/), createdBy: { role: 'SALES' } });
    expect(body.data!.quote.customer.quotes).toEqual([{ id: quoteIds[0] }]);
    expect(body.data!.customers.nodes).toHaveLength(2);
    expect(body.data!.customers.pageInfo.hasNextPage).toBe(true);
    const customer = await gql(tokens[who], 'query C($id: ID!) { customer(id: $id) { email } }', { id: body.data!.quote.customer.id });
    expect(customer.body.data!.customer.email).toBe(`c0@${tenant.subdomain}.test`);
  });

  it.each([['quotes(first: 1) { nodes { id } }'], ['customers(first: 1) { nodes { id } }'], [`quote(id: "${'00000000-0000-4000-8000-000000000000'}") { id }`], [`customer(id: "00000000-0000-4000-8000-000000000000") { id }`]])(
    'a TECHNICIAN is FORBIDDEN %s (cost and margin)',
    async (selection) => {
      const { status, body } = await gql(tokens.tech, `{ ${selection} }`);
      expect(status).toBe(200);
      expect(codes(body)).toEqual(['FORBIDDEN']);
    },
  );

  it('work orders: ADMIN and SALES see all fifty, each technician only theirs', async () => {
    const all = async (who: string) => {
      const { body } = await gql(tokens[who], '{ workOrders(first: 100) { nodes { id assignedTechnician { id } } } }');
      expect(body.errors).toBeUndefined();
      return body.data!.workOrders.nodes as { id: string; assignedTechnician: { id: string } }[];
    };
    expect((await all('admin')).map((order) => order.id).sort()).toEqual([...workOrderIds].sort());
    expect(await all('sales')).toHaveLength(50);
    const mine = await all('tech');
    expect(mine).toHaveLength(30);
    expect(new Set(mine.map((order) => order.assignedTechnician.id))).toEqual(new Set([tenant.users.tech!.id]));
    expect(await all('tech2')).toHaveLength(20);
  });

  it("a technician's workOrder(id) of someone else's is null; their own is theirs, without its quote", async () => {
    const query = 'query W($id: ID!) { workOrder(id: $id) { id status quote { id } } }';
    expect((await gql(tokens.tech, query, { id: workOrderIds[49] })).body.data).toEqual({ workOrder: null });
    const own = await gql(tokens.tech, query, { id: workOrderIds[0] });
    expect(own.body.data).toEqual({ workOrder: { id: workOrderIds[0], status: 'PENDING', quote: null } });
    expect(own.body.errors).toEqual([expect.objectContaining({ path: ['workOrder', 'quote'], extensions: { code: 'FORBIDDEN' } })]);
  });

  it('a malformed id finds nothing (and breaks nothing)', async () => {
    const { body } = await gql(tokens.admin, '{ quote(id: "not-a-uuid") { id } workOrder(id: "42") { id } }');
    expect(body).toMatchObject({ data: { quote: null, workOrder: null } });
    expect(body.errors).toBeUndefined();
  });
});


describe('jobs and crews (D11) from each role', () => {
  const JOBS = `{ jobs(first: 100) { nodes { id status workOrderStatus quoteRef projectType site { name region } crew { name foreman { id } headcount members { id } }
    hoursLogged openChangeOrders changeOrders { sequence status reason labourHours sellCents } timeEntries { hours technician { id } } materialDraws { sku quantity unit } } } }`;

  it.each([['admin', 50], ['sales', 50], ['tech', 30], ['tech2', 20]])('%s reads %i jobs with crew, change orders, time entries and material draws', async (who, count) => {
    const { body } = await gql(tokens[who], JOBS);
    expect(body.errors).toBeUndefined();
    const nodes = body.data!.jobs.nodes as {
      id: string; status: string; quoteRef: string; projectType: string; crew: { foreman: { id: string }; members: { id: string }[] };
      hoursLogged: string; openChangeOrders: number; changeOrders: { sequence: number; status: string; labourHours: string }[]; timeEntries: { hours: string; technician: { id: string } }[]; materialDraws: { sku: string; quantity: string }[];
    }[];
    expect(nodes).toHaveLength(count);
    for (const job of nodes) {
      expect(job).toMatchObject({ status: 'SCHEDULED', projectType: 'install', quoteRef: expect.stringMatching(/^Q-\d+$/), hoursLogged: '2.0000', openChangeOrders: 1 });
      expect(job.changeOrders).toEqual([expect.objectContaining({ sequence: 1, status: 'submitted' })]);
      expect(Number(job.changeOrders[0]!.labourHours)).toBe(1.5);
      expect(job.timeEntries).toEqual([{ hours: '2.0000', technician: { id: job.crew.foreman.id } }]);
      expect(job.materialDraws).toEqual([{ sku: 'FAB-SCREEN-3', quantity: expect.any(String), unit: 'sq_ft' }]);
      expect(Number(job.materialDraws[0]!.quantity)).toBe(2.5);
    }
    if (who.startsWith('tech')) expect(new Set(nodes.map((job) => job.crew.foreman.id))).toEqual(new Set([tenant.users[who]!.id]));
  });

  it('job(id): a technician of another crew gets null; a TECHNICIAN is FORBIDDEN its quote', async () => {
    const query = 'query J($id: ID!) { job(id: $id) { id quote { id } } }';
    expect((await gql(tokens.tech2, query, { id: workOrderIds[0] })).body.data).toEqual({ job: null });
    const own = await gql(tokens.tech, query, { id: workOrderIds[0] });
    expect(own.body.data).toEqual({ job: { id: workOrderIds[0], quote: null } });
    expect(codes(own.body)).toEqual(['FORBIDDEN']);
    expect((await gql(tokens.sales, query, { id: workOrderIds[0] })).body.data).toEqual({ job: { id: workOrderIds[0], quote: { id: quoteIds[0] } } });
  });

  it('crews: ADMIN and SALES see both crews, a technician their own', async () => {
    const names = async (who: string) => ((await gql(tokens[who], '{ crews { nodes { id foreman { id } } } }')).body.data!.crews.nodes as { foreman: { id: string } }[]).map((c) => c.foreman.id);
    expect((await names('admin')).sort()).toEqual([tenant.users.tech!.id, tenant.users.tech2!.id].sort());
    expect((await names('sales')).sort()).toEqual([tenant.users.tech!.id, tenant.users.tech2!.id].sort());
    expect(await names('tech')).toEqual([tenant.users.tech!.id]);
  });

  it('jobs page through first/after in the feed order', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 4; page++) {
      const { body } = await gql(tokens.admin, 'query P($after: String) { jobs(first: 20, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }', { after });
      seen.push(...(body.data!.jobs.nodes as { id: string }[]).map((job) => job.id));
      if (!body.data!.jobs.pageInfo.hasNextPage) break;
      after = body.data!.jobs.pageInfo.endCursor;
    }
    expect(seen.sort()).toEqual([...workOrderIds].sort());
  });
});

describe('moveJob (D11: the same table, history and events as PATCH /v1/fsm/jobs/{id})', () => {
  const MOVE = 'mutation M($id: ID!, $status: JobStatus!) { moveJob(id: $id, status: $status) { id status workOrderStatus workOrder { status } } }';
  const eventsOf = async (jobId: string) =>
    (await owner.query<{ event: string }>(`select event from outbox_events where organization_id = $1 and (event like 'job.%' or event like 'work_order.%')
        and (envelope->'data'->>'job_id' = $2 or envelope->'data'->>'work_order_id' = $2) order by created_at, id`, [tenant.id, jobId])).rows.map((r) => r.event);

  it('ADMIN dispatches: job and work order move together, with job.status_changed, job.dispatched and work_order.dispatched', async () => {
    const jobId = workOrderIds[10]!;
    const { body } = await gql(tokens.admin, MOVE, { id: jobId, status: 'DISPATCHED' });
    expect(body.errors).toBeUndefined();
    expect(body.data!.moveJob).toEqual({ id: jobId, status: 'DISPATCHED', workOrderStatus: 'DISPATCHED', workOrder: { status: 'DISPATCHED' } });
    expect((await eventsOf(jobId)).sort()).toEqual(['job.dispatched', 'job.status_changed', 'work_order.dispatched']);
    // A repeated status changes nothing and records no event.
    expect((await gql(tokens.admin, MOVE, { id: jobId, status: 'DISPATCHED' })).body.data!.moveJob.status).toBe('DISPATCHED');
    expect(await eventsOf(jobId)).toHaveLength(3);
  });

  it('a technician moves their crew\'s job; another crew\'s is NOT_FOUND; SALES is FORBIDDEN; a move off the table is INVALID_TRANSITION, nothing written', async () => {
    const own = workOrderIds[11]!;
    await gql(tokens.admin, MOVE, { id: own, status: 'DISPATCHED' });
    expect((await gql(tokens.tech, MOVE, { id: own, status: 'IN_PROGRESS' })).body.data!.moveJob).toMatchObject({ status: 'IN_PROGRESS', workOrderStatus: 'DISPATCHED' });
    expect(codes((await gql(tokens.tech2, MOVE, { id: own, status: 'ON_HOLD' })).body)).toEqual(['NOT_FOUND']);
    expect(codes((await gql(tokens.sales, MOVE, { id: own, status: 'ON_HOLD' })).body)).toEqual(['FORBIDDEN']);
    const before = await eventsOf(workOrderIds[12]!);
    const history = async () => (await owner.query('select count(*)::int as n from job_history where work_order_id = $1', [workOrderIds[12]])).rows[0].n as number;
    const entries = await history();
    const refused = await gql(tokens.admin, MOVE, { id: workOrderIds[12], status: 'COMPLETE' });
    expect(codes(refused.body)).toEqual(['INVALID_TRANSITION']);
    expect(refused.body.data).toBeNull();
    expect(await eventsOf(workOrderIds[12]!)).toEqual(before);
    expect(await history()).toBe(entries);
    expect(codes((await gql(tokens.admin, MOVE, { id: 'not-a-job', status: 'CANCELLED' })).body)).toEqual(['NOT_FOUND']);
  });
});

describe('createQuote (D14 with an idempotency key argument)', () => {
  const CREATE =
    'mutation C($input: CreateQuoteInput!, $key: String) { createQuote(input: $input, idempotencyKey: $key) { replayed quote { id status revision taxRegion totalAmountCents customer { id } lines { position } revisions(first: 1) { revision createdBy { role } } } } }';
  let input: Record<string, unknown>;
  beforeAll(async () => {
    const customerId = (await owner.query<{ id: string }>('select id from customers where organization_id = $1 order by created_at limit 1', [tenant.id])).rows[0]!.id;
    await owner.query(`insert into catalogue_products (organization_id, sku, name, fabric_sku_code, hardware_sku_code) values ($1, 'ROLLER-SCREEN', 'Screen roller', 'FAB-SCREEN-3', 'HW-ROLLER-STD')`, [tenant.id]);
    input = { customerId, currency: 'CAD', taxRegion: 'CA-ON', pricebookId: tenant.id, lines: [{ sku: 'ROLLER-SCREEN', quantity: 2, configuration: { finishedWidthIn: 48, finishedHeightIn: 60, controlSide: 'left' } }] };
  });
  const quoteCount = async () => (await owner.query('select count(*)::int as n from quotes where organization_id = $1', [tenant.id])).rows[0].n as number;

  it.each([['admin'], ['sales']])('%s creates a DRAFT quote; the same key and input answer the same quote and make nothing', async (who) => {
    const key = `gql-${who}-${Date.now()}`;
    const before = await quoteCount();
    const first = await gql(tokens[who], CREATE, { input, key });
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data!.createQuote).toMatchObject({
      replayed: false,
      quote: { status: 'DRAFT', revision: 1, taxRegion: 'CA-ON', customer: { id: input.customerId }, lines: [{ position: 0 }], revisions: [{ revision: 1, createdBy: { role: who.toUpperCase() } }] },
    });
    // 50 + quote 1 + customer 1 + lines 50 + revisions 1 × (1 + createdBy 1); actual: one line, one revision.
    expect(first.body.extensions!.cost).toMatchObject({ requestedQueryCost: 50 + 1 + 1 + 50 + 2, actualQueryCost: 50 + 1 + 1 + 1 + 2 });
    const again = await gql(tokens[who], CREATE, { input, key });
    expect(again.body.data!.createQuote).toEqual({ ...first.body.data!.createQuote, replayed: true });
    expect(await quoteCount()).toBe(before + 1);
    const created = (await owner.query(`select count(*)::int as n from outbox_events where organization_id = $1 and event = 'quote.created' and envelope->'data'->>'id' = $2`, [tenant.id, first.body.data!.createQuote.quote.id])).rows[0].n;
    expect(created).toBe(1);
  });

  it('the same key with other input is IDEMPOTENCY_KEY_REUSED; without a key each call makes a quote; a TECHNICIAN is FORBIDDEN; bad input writes nothing', async () => {
    const key = `gql-reuse-${Date.now()}`;
    await gql(tokens.admin, CREATE, { input, key });
    const before = await quoteCount();
    expect(codes((await gql(tokens.admin, CREATE, { input: { ...input, taxRegion: 'CA-QC' }, key })).body)).toEqual(['IDEMPOTENCY_KEY_REUSED']);
    expect(codes((await gql(tokens.tech, CREATE, { input })).body)).toEqual(['FORBIDDEN']);
    const bad = await gql(tokens.admin, CREATE, { input: { ...input, currency: 'USD', lines: [{ sku: 'NOPE', quantity: 0, configuration: { finishedWidthIn: 48, finishedHeightIn: 60, controlSide: 'up' } }] } });
    expect(codes(bad.body)).toEqual(['BAD_USER_INPUT']);
    expect(bad.body.errors![0]!.extensions.fields).toMatchObject({ currency: expect.any(String), 'lines.0.quantity': expect.any(String) });
    expect(codes((await gql(tokens.admin, CREATE, { input: { ...input, customerId: otherCustomerId } })).body)).toEqual(['BAD_USER_INPUT']);
    expect(await quoteCount()).toBe(before);
    await gql(tokens.admin, CREATE, { input });
    await gql(tokens.admin, CREATE, { input });
    expect(await quoteCount()).toBe(before + 2);
  });
});

describe('createQuote while the same key is in use (D14)', () => {
  it('answers IDEMPOTENCY_KEY_IN_USE at once and writes nothing; once the key is free the call runs', async () => {
    const customerId = (await owner.query<{ id: string }>('select id from customers where organization_id = $1 order by created_at limit 1', [tenant.id])).rows[0]!.id;
    const input = { customerId, currency: 'CAD', taxRegion: 'CA-ON', pricebookId: tenant.id, lines: [{ sku: 'ROLLER-SCREEN', quantity: 1, configuration: { finishedWidthIn: 40, finishedHeightIn: 50, controlSide: 'right' } }] };
    const CREATE = 'mutation C($input: CreateQuoteInput!, $key: String) { createQuote(input: $input, idempotencyKey: $key) { replayed quote { id } } }';
    const key = `gql-in-use-${Date.now()}`;
    const before = (await owner.query('select count(*)::int as n from quotes where organization_id = $1', [tenant.id])).rows[0].n as number;
    // Another request's transaction holds the key, its claim not yet committed (db/idempotency/keys.ts holdKey).
    const holder = await owner.connect();
    try {
      await holder.query('begin');
      await holder.query(`select pg_advisory_xact_lock(hashtextextended('idempotency:' || $1 || ':' || $2, 0))`, [tenant.id, key]);
      const busy = await gql(tokens.admin, CREATE, { input, key });
      expect(codes(busy.body)).toEqual(['IDEMPOTENCY_KEY_IN_USE']);
      expect((await owner.query('select count(*)::int as n from idempotency_keys where organization_id = $1 and key = $2', [tenant.id, key])).rows[0].n).toBe(0);
    } finally {
      await holder.query('rollback');
      holder.release();
    }
    expect((await owner.query('select count(*)::int as n from quotes where organization_id = $1', [tenant.id])).rows[0].n).toBe(before);
    const free = await gql(tokens.admin, CREATE, { input, key });
    expect(free.body.errors).toBeUndefined();
    expect(free.body.data!.createQuote).toMatchObject({ replayed: false });
  });

  it('follows the protocol of POST /v1/quotes: a key it used is IDEMPOTENCY_KEY_REUSED here, and a claim not yet committed holds a key against both', async () => {
    const customerId = (await owner.query<{ id: string }>('select id from customers where organization_id = $1 order by created_at limit 1', [tenant.id])).rows[0]!.id;
    const input = { customerId, currency: 'CAD', taxRegion: 'CA-ON', pricebookId: tenant.id, lines: [{ sku: 'ROLLER-SCREEN', quantity: 1, configuration: { finishedWidthIn: 40, finishedHeightIn: 50, controlSide: 'right' } }] };
    const CREATE = 'mutation C($input: CreateQuoteInput!, $key: String) { createQuote(input: $input, idempotencyKey: $key) { replayed quote { id } } }';
    const rest = (key: string) => api.request('/v1/quotes', { method: 'POST', token: tokens.admin, json: input, headers: { 'Idempotency-Key': key } });
    const used = `gql-after-rest-${Date.now()}`;
    expect((await rest(used)).status).toBe(201);
    expect(codes((await gql(tokens.admin, CREATE, { input, key: used })).body)).toEqual(['IDEMPOTENCY_KEY_REUSED']);

    const held = `gql-held-${Date.now()}`;
    const holder = await owner.connect();
    try {
      await holder.query('begin');
      await holder.query(`select pg_advisory_xact_lock(hashtextextended('idempotency:' || $1 || ':' || $2, 0))`, [tenant.id, held]);
      const busy = await rest(held);
      expect(busy.status).toBe(409);
      expect(((await busy.json()) as { type: string }).type).toBe('idempotency-key-in-use');
    } finally {
      await holder.query('rollback');
      holder.release();
    }
    const free = await rest(held);
    expect([free.status, free.headers.get('idempotent-replayed')]).toEqual([201, null]);
  });
});

describe('cursor connections', () => {
  it('first/after walks every work order once, in order', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 5; page++) {
      const { body } = await gql(tokens.admin, 'query P($after: String) { workOrders(first: 20, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }', { after });
      const connection = body.data!.workOrders as { edges: { cursor: string; node: { id: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string } };
      seen.push(...connection.edges.map((edge) => edge.node.id));
      expect(connection.pageInfo.endCursor).toBe(connection.edges.at(-1)!.cursor);
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(seen).toEqual(workOrderIds);
  });

  it('a cursor this endpoint did not hand out is BAD_USER_INPUT', async () => {
    const { body } = await gql(tokens.admin, '{ workOrders(after: "bm90LWEtY3Vyc29y") { nodes { id } } }');
    expect(codes(body)).toEqual(['BAD_USER_INPUT']);
  });
});

describe('calculate', () => {
  const MUTATION = `mutation C($input: CalculateInput!) { calculate(input: $input) { currency laborTierCode appliedMargin costCents amountCents marginPercent lineItems { priceCents components { skuCode extendedCostCents } } } }`;
  const input = () => {
    const { persist: _persist, ...body } = twoWindows() as Record<string, unknown>;
    return body;
  };

  it.each([['admin'], ['sales']])('%s gets what POST /api/v1/quotes/calculate answers, and nothing is stored', async (who) => {
    const before = await tableCounts();
    const rest = await api.request('/api/v1/quotes/calculate', { method: 'POST', token: tokens[who], json: twoWindows() });
    const expected = (await rest.json()) as { totals: { cost_cents: number; amount_cents: number; margin_percent: string }; applied_margin: string; line_items: { price_cents: number }[] };
    const { body } = await gql(tokens[who], MUTATION, { input: input() });
    expect(body.errors).toBeUndefined();
    expect(body.data!.calculate).toMatchObject({
      currency: 'CAD',
      laborTierCode: 'STANDARD',
      appliedMargin: expected.applied_margin,
      costCents: expected.totals.cost_cents,
      amountCents: expected.totals.amount_cents,
      marginPercent: expected.totals.margin_percent,
    });
    expect(body.data!.calculate.lineItems.map((line: { priceCents: number }) => line.priceCents)).toEqual(expected.line_items.map((line) => line.price_cents));
    expect(body.extensions!.cost).toMatchObject({ requestedQueryCost: 10, actualQueryCost: 10 });
    expect(await tableCounts()).toBe(before);
  });

  it('a TECHNICIAN is FORBIDDEN', async () => {
    expect(codes((await gql(tokens.tech, MUTATION, { input: input() })).body)).toEqual(['FORBIDDEN']);
  });

  it('below the floor: SALES FORBIDDEN even with a reason; ADMIN needs the reason (section 4.3 rule 3)', async () => {
    const low = { ...input(), targetMargin: 0.1 };
    expect(codes((await gql(tokens.sales, MUTATION, { input: { ...low, marginOverride: { reason: 'Repeat customer discount' } } })).body)).toEqual(['FORBIDDEN']);
    expect(codes((await gql(tokens.admin, MUTATION, { input: low })).body)).toEqual(['BAD_USER_INPUT']);
    const overridden = await gql(tokens.admin, MUTATION, { input: { ...low, marginOverride: { reason: 'Repeat customer discount' } } });
    expect(overridden.body.errors).toBeUndefined();
    expect(Number(overridden.body.data!.calculate.appliedMargin)).toBe(0.1);
  });

  it('input the REST body refuses is BAD_USER_INPUT with the fields, and nothing is written', async () => {
    const before = await tableCounts();
    const bad = { ...input(), lineItems: [{ widthInches: -1, dropInches: 60, quantity: 0, fabricSkuCode: 'FAB-SCREEN-3', hardwareSkuCode: 'HW-ROLLER-STD' }] };
    const { body } = await gql(tokens.admin, MUTATION, { input: bad });
    expect(codes(body)).toEqual(['BAD_USER_INPUT']);
    expect(body.errors![0]!.extensions.fields).toEqual({ 'lineItems.0.widthInches': expect.any(String), 'lineItems.0.quantity': expect.any(String) });
    const unknownSku = await gql(tokens.admin, MUTATION, { input: { ...input(), laborTierCode: 'NO-SUCH-TIER' } });
    expect(codes(unknownSku.body)).toEqual(['BAD_USER_INPUT']);
    expect(await tableCounts()).toBe(before);
  });
});

describe('tenant isolation (the database decides, nested fields included)', () => {
  it("another tenant's quote, customer and work order are null by id", async () => {
    const { body } = await gql(tokens.admin, 'query X($q: ID!, $c: ID!, $w: ID!) { quote(id: $q) { id } customer(id: $c) { id } workOrder(id: $w) { id } }', {
      q: otherQuoteId,
      c: otherCustomerId,
      w: otherWorkOrderId,
    });
    expect(body).toEqual({ data: { quote: null, customer: null, workOrder: null }, extensions: expect.anything() });
  });

  it("a nested reference to another tenant's row resolves to nothing", async () => {
    // The one column without a tenant-scoped foreign key: who created a quote. Point one of ours
    // at the other tenant's admin (as the owner, outside row-level security).
    await owner.query('update quotes set created_by_user_id = $1 where id = $2', [other.users.admin!.id, quoteIds[0]]);
    const { body } = await gql(tokens.admin, 'query Q($id: ID!) { quote(id: $id) { id createdBy { id name email } } workOrders(first: 100) { nodes { quote { createdBy { id } } } } }', {
      id: quoteIds[0],
    });
    expect(body.errors).toBeUndefined();
    expect(body.data!.quote).toEqual({ id: quoteIds[0], createdBy: null });
    const creators = (body.data!.workOrders.nodes as { quote: { createdBy: { id: string } | null } }[]).map((order) => order.quote.createdBy?.id ?? null);
    expect(creators).not.toContain(other.users.admin!.id);
    expect(creators.filter((id) => id === null)).toHaveLength(1);
  });

  it('two tenants asking at once each get only their own (loaders are per request)', async () => {
    const query = '{ workOrders(first: 100) { nodes { id quote { id customer { email } } } } }';
    const [ours, theirs] = await Promise.all([gql(tokens.admin, query), gql(tokens.otherAdmin, query)]);
    expect((ours.body.data!.workOrders.nodes as { id: string }[]).map((order) => order.id).sort()).toEqual([...workOrderIds].sort());
    expect(theirs.body.data!.workOrders.nodes).toEqual([{ id: otherWorkOrderId, quote: { id: otherQuoteId, customer: { email: 'x@other.test' } } }]);
  });
});

describe('no N+1: nested lists are batched per request', () => {
  /** Every statement the application's pool runs while one request is answered. */
  async function statementsOf(query: string): Promise<{ statements: number; body: GraphQLAnswer }> {
    const driver = api.orm.em.getDriver() as unknown as { execute: (...args: unknown[]) => Promise<unknown> };
    const original = driver.execute;
    let statements = 0;
    driver.execute = function counted(this: unknown, ...args: unknown[]) {
      statements++;
      return original.apply(this, args);
    };
    try {
      const { body } = await gql(tokens.admin, query);
      return { statements, body };
    } finally {
      driver.execute = original;
    }
  }
  const JOBS = (first: number) =>
    `{ jobs(first: ${first}) { nodes { id status crew { name foreman { name } } changeOrders { sequence sellCents } timeEntries { hours technician { name } } materialDraws { sku drawnBy { name } } } } }`;

  it('fifty jobs with their crews, change orders, time entries and material draws cost the same few statements as five', async () => {
    const five = await statementsOf(JOBS(5));
    const fifty = await statementsOf(JOBS(50));
    expect(fifty.body.errors).toBeUndefined();
    const jobs = fifty.body.data!.jobs.nodes as { changeOrders: unknown[]; timeEntries: unknown[]; materialDraws: unknown[] }[];
    expect(jobs).toHaveLength(50);
    expect(jobs.every((job) => job.changeOrders.length === 1 && job.timeEntries.length === 1 && job.materialDraws.length === 1)).toBe(true);
    // authentication (2) + tenant and read-only (2) + jobs, crews, change orders, time entries, material draws, people.
    expect(fifty.statements).toBe(five.statements);
    expect(fifty.statements).toBeLessThanOrEqual(12);
  });

  const NESTED = (first: number) =>
    `{ workOrders(first: ${first}) { nodes { id assignedTechnician { name } quote { number createdBy { name } customer { name quotes { id } } lines { priceCents } workOrders { id } } } } }`;

  it('fifty work orders with their quotes, lines, customers and people cost the same few statements as five', async () => {
    const five = await statementsOf(NESTED(5));
    const fifty = await statementsOf(NESTED(50));
    expect(five.body.errors).toBeUndefined();
    expect(fifty.body.errors).toBeUndefined();
    const orders = fifty.body.data!.workOrders.nodes as { quote: { lines: unknown[]; customer: { quotes: unknown[] } } }[];
    expect(orders).toHaveLength(50);
    expect(orders.every((order) => order.quote.lines.length === 2 && order.quote.customer.quotes.length >= 1)).toBe(true);
    // authentication (2) + tenant and read-only (2) + work orders, people, quotes, customers,
    // lines, quotes of customers, work orders of quotes (one each per level).
    expect(fifty.statements).toBe(five.statements);
    expect(fifty.statements).toBeLessThanOrEqual(12);
  });
});

describe('refused before execution: GraphQL errors with codes, never a 500, nothing written', () => {
  const refused = async (init: RequestInit & { json?: unknown }, expected: string, status?: number) => {
    const before = await tableCounts();
    const res = await api.request('/v1/graphql', { method: 'POST', token: tokens.admin, ...init });
    const body = (await res.json()) as GraphQLAnswer;
    expect(res.status).toBeLessThan(500);
    if (status) expect(res.status).toBe(status);
    expect(body.data ?? null).toBeNull();
    expect(codes(body)).toContain(expected);
    expect(await tableCounts()).toBe(before);
    return body;
  };

  it('a syntax error is GRAPHQL_PARSE_FAILED', () => refused({ json: { query: '{ workOrders { nodes { id }' } }, 'GRAPHQL_PARSE_FAILED'));
  it('an unknown field is GRAPHQL_VALIDATION_FAILED', () => refused({ json: { query: '{ workOrders { nodes { password } } }' } }, 'GRAPHQL_VALIDATION_FAILED'));
  it('a variable of the wrong type is BAD_USER_INPUT', () => refused({ json: { query: 'query Q($n: Int) { workOrders(first: $n) { nodes { id } } }', variables: { n: 'ten' } } }, 'BAD_USER_INPUT'));
  it('a missing query is BAD_REQUEST', () => refused({ json: { variables: {} } }, 'BAD_REQUEST'));
  it('a body that is not JSON is BAD_REQUEST', () => refused({ headers: { 'content-type': 'application/json' }, body: '{"query": ' }, 'BAD_REQUEST', 400));
  it('an array of operations is BATCHING_NOT_SUPPORTED', () => refused({ json: [{ query: '{ workOrders { nodes { id } } }' }, { query: '{ workOrders { nodes { id } } }' }] }, 'BATCHING_NOT_SUPPORTED', 400));
  it('a mutation with a syntax error writes nothing', () => refused({ json: { query: 'mutation { calculate(input: {) { amountCents } }' } }, 'GRAPHQL_PARSE_FAILED'));

  it('over-deep is MAX_DEPTH_EXCEEDED', () => {
    const chain = Array.from({ length: LIMITS.maxDepth }, (_, i) => (i % 2 === 0 ? 'quotes' : 'customer'));
    return refused({ json: { query: `{ customers { nodes { ${chain.map((field) => `${field} { `).join('')}id${' }'.repeat(chain.length)} } } }` } }, 'MAX_DEPTH_EXCEEDED');
  });
  it('too many aliases is MAX_ALIASES_EXCEEDED', () =>
    refused({ json: { query: `{ workOrders(first: 1) { nodes { ${Array.from({ length: LIMITS.maxAliases + 1 }, (_, i) => `a${i}: id`).join(' ')} } } }` } }, 'MAX_ALIASES_EXCEEDED'));
  it('too many root fields is MAX_ROOT_FIELDS_EXCEEDED', () =>
    refused({ json: { query: `{ ${Array.from({ length: LIMITS.maxRootFields + 1 }, (_, i) => `w${i}: workOrders(first: 1) { nodes { id } }`).join(' ')} }` } }, 'MAX_ROOT_FIELDS_EXCEEDED'));
  it('over-costly is MAX_COST_EXCEEDED, with the cost it would have had, and draws nothing', async () => {
    const drawn = bucket.taken;
    const body = await refused({ json: { query: '{ customers(first: 100) { nodes { quotes(first: 50) { lines(first: 200) { costCents } } } } }' } }, 'MAX_COST_EXCEEDED');
    expect(body.extensions!.cost).toMatchObject({ requestedQueryCost: 1_005_102, actualQueryCost: 0 });
    expect(body.errors![0]!.extensions).toMatchObject({ maximumQueryCost: MAX_QUERY_COST });
    expect(bucket.taken).toBe(drawn);
  });
  it('introspection abuse is refused (nested introspection)', () =>
    refused({ json: { query: '{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }' } }, 'GRAPHQL_VALIDATION_FAILED'));
  it('a document of too many tokens is GRAPHQL_PARSE_FAILED', () => refused({ json: { query: `{ ${'__typename '.repeat(LIMITS.maxTokens + 1)}}` } }, 'GRAPHQL_PARSE_FAILED'));
  it('huge variables are VARIABLES_TOO_LARGE', () =>
    refused({ json: { query: 'query Q($n: Int) { workOrders(first: $n) { nodes { id } } }', variables: { n: 1, padding: 'x'.repeat(LIMITS.maxVariablesBytes) } } }, 'VARIABLES_TOO_LARGE', 413));
  // Raw JSON: JSON.stringify itself overflows the call stack on such nesting (which is how the route answered 500).
  const nestedVariables = (depth: number) => {
    let text = '1';
    for (let level = 1; level < depth; level++) text = level % 2 ? `[${text}]` : `{"a":${text}}`;
    return `{"n":${text}}`;
  };
  const withVariables = (variables: string) => ({ headers: { 'content-type': 'application/json' }, body: `{"query":"query Q($m: Int) { workOrders(first: $m) { nodes { id } } }","variables":${variables}}` });
  it('variables nested 5,000 deep are VARIABLES_TOO_DEEP (HTTP 400), in GraphQL\'s shape, not a 500 problem', async () => {
    const res = await api.request('/v1/graphql', { method: 'POST', token: tokens.admin, ...withVariables(nestedVariables(5_000)) });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ errors: [{ message: `The variables nest deeper than ${LIMITS.maxVariablesDepth} levels of objects and arrays.`, extensions: { code: 'VARIABLES_TOO_DEEP', maximumDepth: LIMITS.maxVariablesDepth } }] });
    await refused(withVariables(nestedVariables(LIMITS.maxVariablesDepth + 1)), 'VARIABLES_TOO_DEEP', 400);
  });
  it('variables nested exactly as deep as allowed are read', async () => {
    const res = await api.request('/v1/graphql', { method: 'POST', token: tokens.admin, ...withVariables(nestedVariables(LIMITS.maxVariablesDepth)) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as GraphQLAnswer;
    expect(body.errors).toBeUndefined();
    expect(body.data!.workOrders.nodes.length).toBeGreaterThan(0);
  });
  it('a body over the parser limit is REQUEST_TOO_LARGE', () =>
    refused({ json: { query: '{ workOrders { nodes { id } } }', variables: { padding: 'x'.repeat(1_100_000) } } }, 'REQUEST_TOO_LARGE', 413));
  it('a first outside its range is BAD_USER_INPUT', () => refused({ json: { query: '{ workOrders(first: 1000) { nodes { id } } }' } }, 'BAD_USER_INPUT'));

  it('introspection itself works (GraphiQL uses it)', async () => {
    const { body } = await gql(tokens.sales, '{ __schema { queryType { name } mutationType { fields { name } } } }');
    expect(body.data!.__schema.queryType).toEqual({ name: 'Query' });
    expect((body.data!.__schema.mutationType.fields as { name: string }[]).map((field) => field.name).sort()).toEqual(['approveQuote', 'assignCrew', 'calculate', 'createQuote', 'createWorkOrder', 'moveJob', 'scheduleWorkOrder', 'sendQuote']);
  });
});

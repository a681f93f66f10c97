import { randomBytes, randomInt } from 'node:crypto';
import pg from 'pg';
import { Client, Connection } from '@temporalio/client';
import { freePort, waitForPort } from '../infra/free-port';
import { StripeFake } from '../sandboxes/stripe-fake';
import { startIntegrationFakes } from './integration-fakes';
import { WebhookReceiver } from './webhook-receiver';
import { ServiceProcess } from './service-process';
import { RetryingClient } from './retrying-client';
import { SeededRandom } from './seeded-random';
import { approvalLegs, approveQuote, moveWorkOrder, unsettledQuotes } from './crash-workload';
import { countPerKey, takeCensus, censusTable, type ApprovedQuote, type Census, type ExpectedEvent } from './crash-census';
import { connectTenant, deliveriesOf, holdingsOf, sandboxTokens } from './crash-campaign';
import { createTenant, sandboxUser } from './owner-db';
import { TokenService } from '../../api/auth/tokens';
import { BROAD_LIMIT } from '../../api/http/rate-limit';
import { waitUntil } from './wait-until';
import { SYNC_INTERVAL_NEVER_IN_A_TEST } from './temporal-harness';

/**
 * Scale-out in small: two API processes and two worker processes (each its own Node process, as
 * compose's `--scale` runs them) against one PostgreSQL and one Temporal. It checks, through the
 * public API of both processes:
 * - the limits are one count whichever process answers: a burst past the broad limit of one
 *   client address, and past a tenant's D15 plan bucket, sent to both APIs in turn, is admitted
 *   exactly as often as one limit allows;
 * - one Idempotency-Key sent to both APIs at the same moment makes one quote;
 * - approvals (`/api/` calculate and `/v1/quotes`), change orders and a burst of webhook events go
 *   through both APIs while one API and one worker are SIGKILLed and not started again: the
 *   survivors carry the rest, and, counted at the providers' fakes and the webhook receiver,
 *   nothing is made twice or lost;
 * - every workflow the run started on its task queue finished (only the per-endpoint delivery and
 *   token-refresh workflows, which live as long as their endpoint or connection, still run) and
 *   none failed.
 */
export interface ScaleOutOptions {
  /** The owner URL of a migrated and seeded database. */
  databaseUrl: string;
  seed: number;
  /** Approvals under fire (two clean ones before come on top), every other one by `/v1/quotes`. */
  approvals: number;
  /** Work orders moved twice each under fire (two webhook events each). */
  workOrders: number;
  /** Change orders raised and approved under fire, on the jobs of the clean approvals. */
  changeOrders: number;
  concurrency: number;
  /** Shortens the retry timing of the workflows the APIs start (scripts/harness/api-process.ts). */
  retryScale?: number;
  settleDeadlineMs: number;
  /** How long each process may take to start (four at once, two of them bundling their workflows). */
  readyTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface LimitShare {
  /** Requests sent, alternately to each API. */
  sent: number;
  /** What one limit allows of them. */
  allowed: number;
  /** Requests answered other than 429, per API, in the order of `apis`. */
  admittedPerApi: number[];
}

export interface ScaleOutReport {
  broad: LimitShare;
  plan: LimitShare;
  /** Per key sent to both APIs at once: the quote ids each answered, and how many quotes the database holds for its customer. */
  sameKey: { ids: string[]; quotesOfCustomer: number }[];
  /** The `/v1/quotes` keys of the approvals under fire whose customer holds more or fewer than one quote. */
  quotesPerV1Customer: number[];
  census: Census;
  settled: boolean;
  kills: { api: number; worker: number };
  /** Requests answered by each API over the whole run (the killed one first). */
  answeredPerApi: number[];
  /** Workflows of the run's task queue by type and status, once settled. */
  workflows: Record<string, Record<string, number>>;
  lines: string[];
}

const PAYMENTS_KEY = 'sk_test_scaleOut00000001';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Workflows that live as long as their webhook endpoint or provider connection: running is their settled state. */
export const ENTITY_WORKFLOWS: ReadonlySet<string> = new Set(['deliverEndpointWebhooks', 'integrationTokenRefresh']);

export async function runScaleOut(options: ScaleOutOptions): Promise<ScaleOutReport> {
  const log = options.log ?? (() => undefined);
  const order = new SeededRandom(options.seed);
  const runTag = randomBytes(4).toString('hex');
  const taskQueue = `scale-out-${runTag}`;
  const closers: (() => Promise<unknown>)[] = [];
  try {
    const stripe = new StripeFake({ apiKeys: [PAYMENTS_KEY] });
    const stripeUrl = (await stripe.start()).url;
    closers.push(() => stripe.close());
    const fakes = await startIntegrationFakes();
    closers.push(() => fakes.close());
    const receiver = await new WebhookReceiver().start();
    closers.push(() => receiver.close());

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...fakes.env,
      DATABASE_URL: options.databaseUrl,
      TEMPORAL_TASK_QUEUE: taskQueue,
      TEMPORAL_ROUTING_TASK_QUEUE: `${taskQueue}-routing`,
      PROVIDER_SYNC_INTERVAL: SYNC_INTERVAL_NEVER_IN_A_TEST,
      PAYMENTS_SECRET_KEY: PAYMENTS_KEY,
      PAYMENTS_API_BASE_URL: stripeUrl,
      OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true',
      LOG_LEVEL: 'warn',
    };
    const apiPorts = [await freePort(), await freePort()];
    const apis = apiPorts.map(
      (port, i) =>
        new ServiceProcess({
          role: `API ${i + 1}`,
          entry: 'scripts/harness/api-process.ts',
          env: { ...env, PORT: String(port), METRICS_PORT: '0', TRUST_PROXY_HOPS: '1', ...(options.retryScale ? { HARNESS_RETRY_SCALE: String(options.retryScale) } : {}) },
          ready: (timeoutMs) => waitForPort(port, '127.0.0.1', timeoutMs),
          readyTimeoutMs: options.readyTimeoutMs,
        }),
    );
    const metricsPorts = [await freePort(), await freePort()];
    const workers = metricsPorts.map(
      (port, i) =>
        new ServiceProcess({
          role: `worker ${i + 1}`,
          entry: 'worker/main.ts',
          env: { ...env, WORKER_METRICS_PORT: String(port) },
          ready: (timeoutMs) => waitForPort(port, '127.0.0.1', timeoutMs),
          readyTimeoutMs: options.readyTimeoutMs,
        }),
    );
    for (const service of [...apis, ...workers]) closers.push(() => service.stop());
    await Promise.all([...apis, ...workers].map((s) => s.start()));
    log('two APIs and two workers ready');

    const urls = apiPorts.map((port) => `http://127.0.0.1:${port}`);
    const client = new RetryingClient(urls);
    const single = urls.map((url) => new RetryingClient(url));

    const owner = new pg.Pool({ connectionString: options.databaseUrl, max: 2 });
    closers.push(() => owner.end());
    const tokens = await sandboxTokens(options.databaseUrl, env.AUTH_TOKEN_SECRET!);
    await connectTenant(client, tokens, fakes, receiver);

    // The limits, while both APIs serve.
    const broad = await broadLimitShare(single, BROAD_LIMIT.points, 30);
    log(`broad limit: ${broad.admittedPerApi.join(' + ')} admitted of ${broad.sent}`);
    const plan = await planBucketShare(single, owner, env.AUTH_TOKEN_SECRET!, 40, 40);
    log(`plan bucket: ${plan.admittedPerApi.join(' + ')} admitted of ${plan.sent}`);

    // One key, both APIs at the same moment.
    const sameKey = [];
    for (let i = 0; i < 3; i++) sameKey.push(await oneKeyOnBothApis(single, owner, tokens.sales, `scale-${runTag}-same-${i}`));

    const approved: ApprovedQuote[] = [];
    const expectedEvents: ExpectedEvent[] = [];
    const v1Customers: string[] = [];
    const approve = async (i: number) => {
      const customer = { name: `Scale Customer ${i}`, email: `scale-${runTag}-${i}@example.test` };
      const path = i % 2 === 0 ? 'calculate' : 'v1';
      if (path === 'v1') v1Customers.push(customer.email);
      // A /v1/ quote's request goes twice at once with its key: the client sends them to each API in turn.
      const quote = await approveQuote(client, tokens, customer, path, `scale-${runTag}-${i}`, 2);
      approved.push(quote);
      expectedEvents.push({ event: 'quote.approved', subject: quote.quoteId });
      return quote;
    };
    const clean = [await approve(0), await approve(1)];
    await waitUntil('the clean approvals to settle', async () => unsettledQuotes(clean.map((q) => q.quoteId), await approvalLegs(client, tokens.admin)).length === 0, { timeoutMs: 90_000, intervalMs: 500 });
    const technician = await sandboxUser(owner, 'sandbox', 'tech@sandbox.test');
    const jobs: string[] = [];
    for (const quote of clean) jobs.push((await client.json<{ id: string }>('/api/v1/work-orders', { method: 'POST', token: tokens.admin, json: { quoteId: quote.quoteId, assignedTechnicianId: technician.id } }, 201)).id);
    const changeOrders: string[] = [];
    const changeOrder = async (i: number) => void changeOrders.push(await approvedChangeOrder(client, tokens.admin, jobs[i % jobs.length]!, 1 + (i % 3)));
    // One clean change order first: the invoice items it makes are what every one must make.
    await changeOrder(0);
    const changeOrderItems = await waitUntil('the clean change order to be invoiced', () => {
      const items = changeOrderItemsOf(stripe, changeOrders[0]!);
      // Its items are written between the draft and its finalising.
      const finalised = stripe.inspect.invoices(PAYMENTS_KEY).filter((inv) => metaOf(inv).change_order_id === changeOrders[0] && inv.status !== 'draft');
      return items > 0 && finalised.length === 1 ? items : undefined;
    }, { timeoutMs: 60_000, intervalMs: 500 });
    log(`clean approvals and change order counted; seed ${options.seed}; now under fire`);

    const started = Date.now();
    const at = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
    const units = order.shuffled([
      ...Array.from({ length: options.approvals }, (_, i) => async () => void (await approve(i + 2))),
      ...Array.from({ length: options.workOrders }, () => async () => void expectedEvents.push(...(await moveWorkOrder(client, tokens, 2)))),
      ...Array.from({ length: options.changeOrders }, (_, i) => () => changeOrder(i + 1)),
    ]);
    // One API and one worker die when a seeded share of the units have finished, and stay dead.
    const apiKillAt = Math.round(order.between(units.length * 0.25, units.length * 0.6));
    const workerKillAt = Math.round(order.between(units.length * 0.25, units.length * 0.6));
    const [victimApi, victimWorker] = [apis[0]!, workers[0]!];
    let finished = 0;
    const kills: Promise<void>[] = [];
    const onFinished = () => {
      finished++;
      if (finished === apiKillAt) kills.push(victimApi.kill().then(() => log(`${victimApi.role} killed at ${at()}, after ${finished} of ${units.length} units`)));
      if (finished === workerKillAt) kills.push(victimWorker.kill().then(() => log(`${victimWorker.role} killed at ${at()}, after ${finished} of ${units.length} units`)));
    };
    let next = 0;
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (next < units.length) {
          const unit = units[next++]!;
          await unit();
          onFinished();
        }
      }),
    );
    await Promise.all(kills);
    log(`all ${units.length} units done at ${at()}; waiting for the legs, the change orders' invoices and the deliveries to settle`);

    const temporal = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    closers.push(() => temporal.close());
    const workflowClient = new Client({ connection: temporal, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
    let workflows: Record<string, Record<string, number>> = {};
    let outstanding = '';
    const settled = await waitUntil(
      'everything to settle',
      async () => {
        const seen = new Set(deliveriesOf(receiver).map((d) => `${d.event} ${d.subject}`));
        const eventsLeft = expectedEvents.filter((e) => !seen.has(`${e.event} ${e.subject}`)).length;
        const legs = await approvalLegs(client, tokens.admin);
        const quotesLeft = unsettledQuotes(approved.map((q) => q.quoteId), legs).length;
        const changeOrdersLeft = changeOrders.filter((id) => changeOrderInvoicesOf(stripe, id) === 0).length;
        workflows = await workflowsOf(workflowClient, taskQueue);
        const unfinished = Object.entries(workflows).flatMap(([type, statuses]) => Object.entries(statuses).filter(([status]) => status !== 'COMPLETED' && !(status === 'RUNNING' && ENTITY_WORKFLOWS.has(type))).map(([status, n]) => `${n} ${type} ${status}`));
        outstanding = `${eventsLeft} events not received, ${quotesLeft} approvals with a leg not SUCCEEDED, ${changeOrdersLeft} change orders not invoiced, workflows not finished: ${unfinished.join(', ') || 'none'}`;
        return eventsLeft === 0 && quotesLeft === 0 && changeOrdersLeft === 0 && unfinished.length === 0;
      },
      { timeoutMs: options.settleDeadlineMs, intervalMs: 1_000 },
    ).then(
      () => true,
      (error: unknown) => {
        log(`${String(error)}: ${outstanding}`);
        return false;
      },
    );
    const elapsedMs = Date.now() - started;
    // A moment for anything late (a second invoice, a second event id) to show up before counting.
    await sleep(1_500);
    const census = takeCensus(approved, holdingsOf(stripe, fakes, runTag, PAYMENTS_KEY), expectedEvents, deliveriesOf(receiver));
    const coInvoices = changeOrderHoldings(stripe);
    census.rows.push(
      countPerKey('payments change-order invoices', new Map(changeOrders.map((id) => [id, 1])), coInvoices.invoices),
      countPerKey('payments change-order invoice items', new Map(changeOrders.map((id) => [id, changeOrderItems])), coInvoices.items),
    );
    census.duplicates = census.rows.reduce((sum, r) => sum + r.duplicates, 0);
    census.losses = census.rows.reduce((sum, r) => sum + r.losses, 0);
    const quotesPerV1Customer = (
      await owner.query<{ n: number }>(`select count(q.id)::int as n from customers c left join quotes q on q.customer_id = c.id where c.email = any($1) group by c.id`, [v1Customers])
    ).rows.map((r) => r.n);
    const answeredPerApi = urls.map((url) => (client.answered.get(url) ?? 0) + (single[urls.indexOf(url)]!.answered.get(url) ?? 0));
    const lines = [
      `two APIs, two workers, one PostgreSQL, one Temporal; seed ${options.seed}`,
      `broad limit (${BROAD_LIMIT.points} a minute per address): ${broad.sent} requests to both APIs in turn, admitted ${broad.admittedPerApi.join(' + ')} = ${sum(broad.admittedPerApi)}`,
      `plan bucket of ${plan.allowed} tokens: ${plan.sent} requests to both APIs in turn, admitted ${plan.admittedPerApi.join(' + ')} = ${sum(plan.admittedPerApi)}`,
      `one key on both APIs at once: ${sameKey.map((k) => `${new Set(k.ids).size} quote id(s), ${k.quotesOfCustomer} in the database`).join('; ')}`,
      `${approved.length} approvals (${options.approvals} under fire), ${changeOrders.length} change orders, ${expectedEvents.length} events (${options.workOrders * 2} work-order moves)`,
      '',
      ...censusTable(census),
      '',
      `time under fire until settled: ${(elapsedMs / 1000).toFixed(1)} s${settled ? '' : ` (NOT settled within ${options.settleDeadlineMs / 1000} s: ${outstanding})`}`,
      `kills: ${victimApi.role} ${victimApi.kills}, ${victimWorker.role} ${victimWorker.kills} (SIGKILL, not started again)`,
      `requests answered per API: ${answeredPerApi.join(', ')}; sent again because an API was gone: ${client.resent}`,
      `workflows: ${Object.entries(workflows).map(([type, statuses]) => `${type} ${Object.entries(statuses).map(([s, n]) => `${n} ${s}`).join('/')}`).join(', ')}`,
    ];
    return { broad, plan, sameKey, quotesPerV1Customer, census, settled, kills: { api: victimApi.kills, worker: victimWorker.kills }, answeredPerApi, workflows, lines };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** Sends `count` requests alternately to each API, `concurrency` at a time; answers the statuses per API. */
async function alternately(clients: RetryingClient[], count: number, send: (client: RetryingClient) => Promise<Response>, concurrency = 8): Promise<number[][]> {
  const statuses: number[][] = clients.map(() => []);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++ % clients.length;
        const res = await send(clients[i]!);
        await res.arrayBuffer();
        statuses[i]!.push(res.status);
      }
    }),
  );
  return statuses;
}

/**
 * The broad limit of one client address, from a fresh address: `points + extra` requests without
 * a token (each a 401 once counted), alternately to each API.
 */
async function broadLimitShare(clients: RetryingClient[], points: number, extra: number): Promise<LimitShare> {
  const address = `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`;
  const statuses = await alternately(clients, points + extra, (c) => c.request('/api/v1/quotes', { headers: { 'x-forwarded-for': address } }));
  const stray = statuses.flat().filter((s) => s !== 401 && s !== 429);
  if (stray.length > 0) throw new Error(`the broad-limit burst answered ${[...new Set(stray)].join(', ')}, not only 401 and 429`);
  return { sent: points + extra, allowed: points, admittedPerApi: statuses.map((s) => s.filter((x) => x !== 429).length) };
}

/**
 * A fresh tenant's D15 bucket holding `tokens`, stamped an hour ahead so it does not refill while
 * the burst runs (as test/integration/plan-limits.test.ts does), then `tokens + extra` requests to
 * `/v1/pricebooks`, alternately to each API.
 */
async function planBucketShare(clients: RetryingClient[], owner: pg.Pool, secret: string, tokens: number, extra: number): Promise<LimitShare> {
  const tenant = await createTenant(owner, { admin: 'ADMIN' });
  const admin = tenant.users.admin!;
  const token = await new TokenService(secret).issue({ userId: admin.id, organizationId: admin.organizationId, role: admin.role });
  await owner.query(
    `insert into plan_buckets (organization_id, tokens, allowed, updated_at) values ($1, $2, true, clock_timestamp() + interval '1 hour')
     on conflict (organization_id) do update set tokens = excluded.tokens, updated_at = excluded.updated_at`,
    [tenant.id, tokens],
  );
  const statuses = await alternately(clients, tokens + extra, (c) => c.request('/v1/pricebooks', { token }));
  const stray = statuses.flat().filter((s) => s !== 200 && s !== 429);
  if (stray.length > 0) throw new Error(`the plan-bucket burst answered ${[...new Set(stray)].join(', ')}, not only 200 and 429`);
  return { sent: tokens + extra, allowed: tokens, admittedPerApi: statuses.map((s) => s.filter((x) => x !== 429).length) };
}

/**
 * A customer, then one `/v1/quotes` request with one Idempotency-Key sent to each API at the same
 * moment: a request that meets the other's key still running (409 `idempotency-key-in-use`) is
 * sent again until answered. Answers each API's quote id and the quotes the customer holds.
 */
async function oneKeyOnBothApis(clients: RetryingClient[], owner: pg.Pool, sales: string, key: string): Promise<{ ids: string[]; quotesOfCustomer: number }> {
  const customer = await clients[0]!.json<{ id: string }>('/v1/customers', { method: 'POST', token: sales, json: { name: `Same Key ${key}`, email: `${key}@example.test` } }, 201);
  const pricebooks = await clients[0]!.json<{ data: { id: string }[] }>('/v1/pricebooks', { token: sales });
  const body = { customerId: customer.id, currency: 'CAD', taxRegion: 'CA-ON', pricebookId: pricebooks.data[0]!.id, lines: [{ sku: 'ROLLER-SCREEN', quantity: 1, configuration: { finishedWidthIn: 48, finishedHeightIn: 60, controlSide: 'left', motorised: false } }] };
  const ids = await Promise.all(
    clients.map(async (c) => {
      for (let attempt = 0; attempt < 60; attempt++) {
        const res = await c.request('/v1/quotes', { method: 'POST', token: sales, json: body, headers: { 'idempotency-key': key } });
        const text = await res.text();
        if (res.status === 201 || res.status === 200) return (JSON.parse(text) as { id: string }).id;
        if (res.status !== 409 || !text.includes('idempotency-key-in-use')) throw new Error(`POST /v1/quotes answered ${res.status}: ${text}`);
        await sleep(250);
      }
      throw new Error(`the key ${key} stayed in use`);
    }),
  );
  const { rows } = await owner.query<{ n: number }>('select count(*)::int as n from quotes where customer_id = $1', [customer.id]);
  return { ids, quotesOfCustomer: rows[0]!.n };
}

/**
 * Raises a change order of `labourHours` more on `jobId` and approves it (D12). A raise sent again
 * after a lost answer may leave an extra change order, never approved, so never invoiced; an
 * approve sent again answers 409, and the job then lists the change order approved.
 */
async function approvedChangeOrder(client: RetryingClient, admin: string, jobId: string, labourHours: number): Promise<string> {
  const raised = await client.json<{ change_order_id: string }>(`/v1/fsm/jobs/${jobId}/change-orders`, { method: 'POST', token: admin, json: { reason: 'The customer asked for more work on site', labour_hours: labourHours } }, 201);
  const id = raised.change_order_id;
  const res = await client.request(`/v1/fsm/change-orders/${id}/approve`, { method: 'POST', token: admin, json: { approved_by: { name: 'Robin Park', role: 'Homeowner', method: 'in_person' } } });
  if (res.status === 409) {
    const job = await client.json<{ change_orders: { change_order_id: string; status: string }[] }>(`/v1/fsm/jobs/${jobId}`, { token: admin });
    const status = job.change_orders.find((c) => c.change_order_id === id)?.status;
    if (status !== 'approved') throw new Error(`approve of change order ${id} answered 409 and it is ${status}`);
  } else if (res.status !== 200) {
    throw new Error(`approve of change order ${id} answered ${res.status}: ${await res.text()}`);
  }
  return id;
}

const metaOf = (o: Record<string, unknown>) => (o.metadata ?? {}) as Record<string, string | undefined>;

function changeOrderHoldings(stripe: StripeFake): { invoices: (string | undefined)[]; items: (string | undefined)[] } {
  return {
    invoices: stripe.inspect.invoices(PAYMENTS_KEY).map((i) => metaOf(i).change_order_id).filter((id) => id !== undefined),
    items: stripe.inspect.invoiceItems(PAYMENTS_KEY).map((i) => metaOf(i).change_order_id).filter((id) => id !== undefined),
  };
}

const changeOrderInvoicesOf = (stripe: StripeFake, id: string) => changeOrderHoldings(stripe).invoices.filter((x) => x === id).length;
const changeOrderItemsOf = (stripe: StripeFake, id: string) => changeOrderHoldings(stripe).items.filter((x) => x === id).length;

/** Every workflow of the task queue, counted by type and status. */
async function workflowsOf(client: Client, taskQueue: string): Promise<Record<string, Record<string, number>>> {
  const counts: Record<string, Record<string, number>> = {};
  for await (const execution of client.workflow.list({ query: `TaskQueue = '${taskQueue}'` })) {
    const byStatus = (counts[execution.type] ??= {});
    byStatus[execution.status.name] = (byStatus[execution.status.name] ?? 0) + 1;
  }
  return counts;
}

import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { freePort, waitForPort } from '../infra/free-port';
import { StripeFake } from '../sandboxes/stripe-fake';
import { startIntegrationFakes, consent, type IntegrationFakes } from './integration-fakes';
import { WebhookReceiver } from './webhook-receiver';
import { ServiceProcess } from './service-process';
import { RetryingClient } from './retrying-client';
import { SeededRandom } from './seeded-random';
import { ProcessKiller } from './process-killer';
import { approvalLegs, approveQuote, moveWorkOrder, unsettledQuotes, type CampaignTokens } from './crash-workload';
import { censusTable, takeCensus, type ApprovedQuote, type Census, type ExpectedEvent, type ProviderHoldings, type ReceivedDelivery } from './crash-census';
import { sandboxUser } from './owner-db';
import { TokenService } from '../../api/auth/tokens';
import { QUOTE_EXTERNAL_ID_FIELD } from '../../activities/crm/upsert-opportunity';
import { waitUntil } from './wait-until';

/**
 * The crash campaign (docs/crash-campaign.md): approvals and webhook events through the
 * API while the worker process is SIGKILLed at seeded random moments and started again, and the
 * API process once; then, once everything has settled, a count at the providers' fakes and the
 * webhook receiver of duplicates and losses. bench/crash-campaign.ts runs the big one, the suite
 * (test/integration/crash-campaign.test.ts) a small one.
 */
export interface CrashCampaignOptions {
  /** Approvals under fire (a clean one before the first kill comes on top). */
  approvals: number;
  /** Webhook events under fire (work-order moves, two per work order); the approvals' quote.approved events come on top. */
  events: number;
  /** At least this many worker kills (more while the work is still being sent). */
  workerKills: number;
  apiKills: number;
  seed: number;
  /** Units of work (one approval, or one work order's moves) started per second, and at most this many at once. */
  unitsPerSecond: number;
  concurrency: number;
  /** How long a worker lives between being ready and its kill, and the pause before its restart (ms, [min, max]). */
  workerUptimeMs: [number, number];
  restartPauseMs: [number, number];
  /** How long everything may take to settle after the last kill. */
  settleDeadlineMs: number;
  /** The owner URL of a migrated and seeded database (default DATABASE_URL). */
  databaseUrl?: string;
  /** Shortens the retry timing of the workflows the API starts (scripts/harness/api-process.ts); unset: production timing. */
  retryScale?: number;
  log?: (line: string) => void;
}

export interface CrashCampaignReport {
  census: Census;
  elapsedMs: number;
  kills: { worker: number; api: number };
  /** Largest resident high-water mark over every incarnation of each process (KiB). */
  peakKiB: { worker: number; api: number };
  resentRequests: number;
  settled: boolean;
  /** The whole report as printed. */
  lines: string[];
}

const PAYMENTS_KEY = 'sk_test_crashCampaign0001';
const SUBSCRIBED = ['quote.approved', 'work_order.dispatched', 'work_order.completed'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runCrashCampaign(options: CrashCampaignOptions): Promise<CrashCampaignReport> {
  const log = options.log ?? (() => undefined);
  // One generator per concern, so each draws the same sequence for a seed whatever the timing.
  const order = new SeededRandom(options.seed);
  const workerMoments = new SeededRandom(options.seed + 1);
  const apiPauses = new SeededRandom(options.seed + 2);
  const databaseUrl = options.databaseUrl ?? process.env.DATABASE_URL!;
  const runTag = randomBytes(4).toString('hex');
  const closers: (() => Promise<unknown>)[] = [];
  try {
    const stripe = new StripeFake({ apiKeys: [PAYMENTS_KEY] });
    const stripeUrl = (await stripe.start()).url;
    closers.push(() => stripe.close());
    const fakes = await startIntegrationFakes();
    closers.push(() => fakes.close());
    const receiver = await new WebhookReceiver().start();
    closers.push(() => receiver.close());

    const [apiPort, workerMetricsPort] = [await freePort(), await freePort()];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...fakes.env,
      DATABASE_URL: databaseUrl,
      TEMPORAL_TASK_QUEUE: `crash-campaign-${runTag}`,
      PAYMENTS_SECRET_KEY: PAYMENTS_KEY,
      PAYMENTS_API_BASE_URL: stripeUrl,
      OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true',
      LOG_LEVEL: 'warn',
    };
    const worker = new ServiceProcess({
      role: 'worker',
      entry: 'worker/main.ts',
      env: { ...env, WORKER_METRICS_PORT: String(workerMetricsPort) },
      // Its metrics port is served once the worker is built, just before it polls.
      ready: (timeoutMs) => waitForPort(workerMetricsPort, '127.0.0.1', timeoutMs),
    });
    const api = new ServiceProcess({
      role: 'API',
      entry: 'scripts/harness/api-process.ts',
      env: { ...env, PORT: String(apiPort), METRICS_PORT: '0', TRUST_PROXY_HOPS: '1', ...(options.retryScale ? { HARNESS_RETRY_SCALE: String(options.retryScale) } : {}) },
      ready: (timeoutMs) => waitForPort(apiPort, '127.0.0.1', timeoutMs),
    });
    closers.push(() => api.stop(), () => worker.stop());
    await Promise.all([worker.start(), api.start()]);
    const client = new RetryingClient(`http://127.0.0.1:${apiPort}`);

    const tokens = await sandboxTokens(databaseUrl, env.AUTH_TOKEN_SECRET!);
    await connectTenant(client, tokens, fakes, receiver);

    const approved: ApprovedQuote[] = [];
    const expectedEvents: ExpectedEvent[] = [];
    // Every other quote is made through D14's /v1/quotes with idempotency keys, the others by calculate.
    const approve = async (i: number) => {
      const customer = { name: `Crash Customer ${i}`, email: `crash-${runTag}-${i}@example.test` };
      const quote = await approveQuote(client, tokens, customer, i % 2 === 0 ? 'calculate' : 'v1', `crash-${runTag}-${i}`);
      approved.push(quote);
      expectedEvents.push({ event: 'quote.approved', subject: quote.quoteId });
      return quote;
    };

    // One clean approval of each kind first: what it makes must be what the census expects of every approval.
    const clean = [await approve(0), await approve(1)];
    await waitUntil('the clean approvals to settle', async () => unsettledQuotes(clean.map((q) => q.quoteId), await approvalLegs(client, tokens.admin)).length === 0, { timeoutMs: 120_000, intervalMs: 1_000 });
    const cleanCensus = takeCensus(clean, holdingsOf(stripe, fakes, runTag), [], []);
    if (cleanCensus.duplicates + cleanCensus.losses > 0) throw new Error(`a clean approval did not make what the census expects of it:\n${censusTable(cleanCensus).join('\n')}`);
    log(`clean approvals counted as expected; seed ${options.seed}; now under fire`);

    const started = Date.now();
    const at = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
    const workOrders = Math.ceil(options.events / 2);
    const units = order.shuffled([
      ...Array.from({ length: options.approvals }, (_, i) => async () => void (await approve(i + 2))),
      ...Array.from({ length: workOrders }, (_, i) => async () => void expectedEvents.push(...(await moveWorkOrder(client, tokens, i === workOrders - 1 && options.events % 2 === 1 ? 1 : 2)))),
    ]);
    // The API dies once (or apiKills times), when a random share of the units have finished.
    const apiKillsAt = Array.from({ length: options.apiKills }, () => order.between(units.length * 0.2, units.length * 0.8)).sort((a, b) => a - b);
    let finished = 0;
    const onFinished = async () => {
      finished++;
      while (apiKillsAt.length > 0 && finished >= apiKillsAt[0]!) {
        apiKillsAt.shift();
        await api.kill();
        log(`API killed (${api.kills}) at ${at()}, after ${finished} units`);
        await sleep(apiPauses.between(...options.restartPauseMs));
        await api.start();
      }
    };
    const killer = new ProcessKiller(worker, workerMoments, {
      uptimeMs: options.workerUptimeMs,
      pauseMs: options.restartPauseMs,
      atLeast: options.workerKills,
      onKill: (kills) => log(`worker killed (${kills}) at ${at()}, ${finished}/${units.length} units done`),
    });
    const killing = killer.run();
    // Awaited below; a start that fails meanwhile must not count as an unhandled rejection.
    killing.catch(() => undefined);
    const gap = 1000 / options.unitsPerSecond;
    let next = 0;
    const producing = Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (next < units.length) {
          const unit = units[next++]!;
          const due = started + next * gap;
          if (due > Date.now()) await sleep(due - Date.now());
          await unit();
          await onFinished();
        }
      }),
    );
    // A unit that fails ends the campaign, but only once the killer has stopped starting workers.
    try {
      await producing;
    } catch (error) {
      killer.abort();
      await killing;
      throw error;
    }
    killer.finish();
    await killing;
    log(`all ${units.length} units done and ${worker.kills} worker kills made at ${at()}; waiting for the legs and the deliveries to settle`);

    const deliveries = () => deliveriesOf(receiver);
    let outstanding = '';
    const settled = await waitUntil(
      'everything to settle',
      async () => {
        const seen = new Set(deliveries().map((d) => `${d.event} ${d.subject}`));
        const eventsLeft = expectedEvents.filter((e) => !seen.has(`${e.event} ${e.subject}`)).length;
        const legs = await approvalLegs(client, tokens.admin);
        const quotesLeft = unsettledQuotes(approved.map((q) => q.quoteId), legs).length;
        const failed = legs.filter((l) => l.status === 'FAILED').map((l) => `${l.provider} of ${l.quoteId}: ${l.lastError}`);
        outstanding = `${eventsLeft} events not received, ${quotesLeft} approvals with a leg not SUCCEEDED${failed.length > 0 ? `; FAILED legs: ${failed.join('; ')}` : ''}`;
        return eventsLeft === 0 && quotesLeft === 0;
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
    await sleep(2_000);
    const census = takeCensus(approved, holdingsOf(stripe, fakes, runTag), expectedEvents, deliveries());
    const peakKiB = { worker: worker.peakKiB(), api: api.peakKiB() };
    const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`;
    const lines = [
      `${approved.length} approvals (${options.approvals} under fire and 2 clean; every other one by /v1/quotes with idempotency keys), ${expectedEvents.length} events (${options.events} work-order moves and ${approved.length} quote.approved), seed ${options.seed}`,
      '',
      ...censusTable(census),
      '',
      `time under fire until settled: ${(elapsedMs / 1000).toFixed(1)} s${settled ? '' : ` (NOT settled within ${options.settleDeadlineMs / 1000} s after the last unit)`}`,
      `kills: worker ${worker.kills} (SIGKILL, restarted each time), API ${api.kills}`,
      `requests sent again because no API answered: ${client.resent}; idempotency keys a killed API held, waited out: ${client.waitedForKeys}`,
      `peak resident memory, API (largest of ${api.starts} processes): ${mib(peakKiB.api)}`,
      `peak resident memory, worker (largest of ${worker.starts} processes): ${mib(peakKiB.worker)}`,
    ];
    return { census, elapsedMs, kills: { worker: worker.kills, api: api.kills }, peakKiB, resentRequests: client.resent, settled, lines };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }
}

/** Tokens of the D1 sandbox tenant's sales and admin users (their ids read as the owner, a fixture). */
export async function sandboxTokens(databaseUrl: string, secret: string): Promise<CampaignTokens> {
  const owner = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const issue = new TokenService(secret);
    const token = async (email: string) => {
      const user = await sandboxUser(owner, 'sandbox', email);
      return issue.issue({ userId: user.id, organizationId: user.organizationId, role: user.role });
    };
    return { sales: await token('sales@sandbox.test'), admin: await token('admin@sandbox.test') };
  } finally {
    await owner.end();
  }
}

/** Accounting and CRM connected through the real consent flow; an endpoint for the run's events. */
export async function connectTenant(client: RetryingClient, tokens: CampaignTokens, fakes: IntegrationFakes, receiver: WebhookReceiver): Promise<void> {
  for (const slug of ['accounting', 'crm'] as const) {
    const res = await consent(client, tokens.admin, slug);
    if (res.status !== 200) throw new Error(`connecting ${slug} answered ${res.status}: ${await res.text()}`);
  }
  await client.json('/api/v1/webhook-endpoints', { method: 'POST', token: tokens.admin, json: { url: receiver.url, events: SUBSCRIBED } }, 201);
}

/**
 * What the fakes hold that this service wrote: every object of the payments fake (a fresh one),
 * the accounting customers named for this run, the accounting invoices whose note names a quote
 * (as ours do), and the opportunities that carry a quote id. A change order's invoice (D12) names
 * its quote too, and is left out here: it is counted by change order (scale-out.ts).
 */
export function holdingsOf(stripe: StripeFake, fakes: IntegrationFakes, runTag: string, key = PAYMENTS_KEY): ProviderHoldings {
  const meta = (o: Record<string, unknown>) => (o.metadata ?? {}) as Record<string, string | undefined>;
  const ofQuote = (o: Record<string, unknown>) => meta(o).change_order_id === undefined;
  return {
    stripeCustomerEmails: stripe.inspect.customers(key).map((c) => c.email as string | null),
    stripeInvoiceQuoteIds: stripe.inspect.invoices(key).filter(ofQuote).map((i) => meta(i).quote_id),
    stripeInvoiceItemQuoteIds: stripe.inspect.invoiceItems(key).filter(ofQuote).map((i) => meta(i).quote_id),
    qboCustomerDisplayNames: fakes.qbo.inspect.customers().map((c) => c.DisplayName as string | undefined).filter((name) => name?.includes(runTag)),
    qboInvoiceDocNumbers: fakes.qbo.inspect.invoices().filter((i) => String(i.PrivateNote ?? '').startsWith('Quote ')).map((i) => i.DocNumber as string | undefined),
    sfOpportunityQuoteIds: fakes.sf.inspect.records('Opportunity').map((r) => r[QUOTE_EXTERNAL_ID_FIELD] as string | undefined).filter((id) => id != null),
  };
}

/** Every delivery at the receiver, read from its core envelope: the event, its id and the change it is about. */
export function deliveriesOf(receiver: WebhookReceiver): ReceivedDelivery[] {
  return receiver.received.map((r) => {
    const envelope = JSON.parse(r.body) as { event: string; id: string; data: { work_order_id?: string; quote_id?: string } };
    return { eventId: envelope.id, event: envelope.event, subject: envelope.event.startsWith('work_order.') ? envelope.data.work_order_id : envelope.data.quote_id };
  });
}


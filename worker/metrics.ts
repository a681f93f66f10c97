import type { EntityManager } from '@mikro-orm/postgresql';
import { Counter, Gauge, type Registry } from 'prom-client';
import { readOperationsFigures, readSyncRunLag, readTenantSubdomains, type TenantOperationsFigures } from '../db/operations-metrics';

/** How far behind one tenant's sync with one provider is: seconds since its last completed run. */
export interface SyncRunLag {
  organizationId: string;
  provider: string;
  lagSeconds: number;
}

/**
 * Reads the sync runs' lag per tenant and provider (the field-sync of spec 001 keeps its runs in
 * `provider_sync_runs`); injected so that the feature owning that table supplies it.
 */
export type SyncRunLagReader = () => Promise<SyncRunLag[]>;

/**
 * The subdomains of the tenants named (every tenant's at least those): the per-tenant series
 * carry it beside `organization_id`, as operators name a tenant. Bounded by the tenant count.
 */
export type SubdomainReader = (organizationIds: readonly string[]) => Promise<ReadonlyMap<string, string>>;

/**
 * Through the worker's door `tenant_subdomains()`, read again only when a tenant it has not seen
 * is named (a subdomain never changes): a scrape usually reads nothing more.
 */
export function subdomainsFrom(em: EntityManager): SubdomainReader {
  let known = new Map<string, string>();
  return async (organizationIds) => {
    if (organizationIds.some((id) => !known.has(id))) known = await readTenantSubdomains(em);
    return known;
  };
}

/** Without a sync feature to ask, there is no run to be late. */
export const noSyncRuns: SyncRunLagReader = async () => [];

/** The default reader: the provider sync's runs table through `sync_run_lag()` (nothing while it does not exist). */
export function syncRunLagFrom(em: EntityManager): SyncRunLagReader {
  return () => readSyncRunLag(em);
}

export type ProviderCallOutcome = 'succeeded' | 'failed' | 'refused';

/**
 * The worker's own metrics, on the process registry: provider calls and webhook
 * deliveries as they happen (counted by worker/activity-interceptors.ts), and, read at each
 * scrape, what the operator's alerts watch: the outbox's lag, legs awaiting repair, disabled
 * endpoints (db/operations-metrics.ts) and the sync runs' lag.
 */
export interface WorkerMetrics {
  readonly registry: Registry;
  readonly providerCalls: Counter<'provider' | 'outcome'>;
  readonly webhookAttempts: Counter<'outcome'>;
  readonly webhookDeliveries: Counter<'outcome'>;
}

export function createWorkerMetrics(
  registry: Registry,
  sources: { operations?: () => Promise<TenantOperationsFigures[]>; syncRunLag?: SyncRunLagReader; subdomains?: SubdomainReader } = {},
): WorkerMetrics {
  // A tenant whose subdomain cannot be read (never: every tenant has one) keeps its series, labelled ''.
  const subdomainsOf = sources.subdomains ?? (async () => new Map<string, string>());
  const tenantLabels = async (organizationIds: readonly string[]) => {
    const names = await subdomainsOf(organizationIds);
    return (organizationId: string) => ({ organization_id: organizationId, subdomain: names.get(organizationId) ?? '' });
  };
  const providerCalls = new Counter({
    name: 'shade_provider_calls_total',
    help: 'Provider writes and token refreshes run by activities, by provider (payments, accounting, crm) and outcome (succeeded; failed: to be retried; refused: not retryable).',
    labelNames: ['provider', 'outcome'] as const,
    registers: [registry],
  });
  const webhookAttempts = new Counter({
    name: 'shade_webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts, by outcome (delivered, retryable_failure, permanent_failure, endpoint_disabled, ...).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const webhookDeliveries = new Counter({
    name: 'shade_webhook_deliveries_total',
    help: 'Webhook deliveries finished, by outcome: delivered, failed (attempts used up, refused, endpoint deleted) or missed (endpoint disabled).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });

  const readErrors = new Counter({
    name: 'shade_operations_read_errors_total',
    help: 'Scrapes whose read of the operations figures (outbox, legs, endpoints, sync runs) failed; the outbox gauges then read 0 and the per-tenant gauges have no series.',
    registers: [registry],
  });
  // One read per scrape, shared by the gauges it feeds: a scrape collects every metric at once,
  // in the order they were registered, so the first of these gauges reads and the others reuse it.
  const operations = sources.operations;
  let pending: Promise<TenantOperationsFigures[]> | undefined;
  let labelsOf: (organizationId: string) => { organization_id: string; subdomain: string } = (organizationId) => ({ organization_id: organizationId, subdomain: '' });
  const read = () =>
    (pending = (operations ? operations() : Promise.resolve([]))
      .then(async (figures) => {
        labelsOf = await tenantLabels(figures.map((t) => t.organizationId));
        return figures;
      })
      .catch(() => {
        readErrors.inc();
        return [];
      }));
  const figures = () => pending ?? read();
  new Gauge({
    name: 'shade_outbox_undispatched_events',
    help: 'Committed events whose workflows have not all been started yet.',
    registers: [registry],
    async collect() {
      this.set((await read()).reduce((sum, t) => sum + t.outboxUndispatched, 0));
    },
  });
  new Gauge({
    name: 'shade_outbox_lag_seconds',
    help: 'Age of the oldest committed event not yet dispatched (0 when none): how far the outbox relay is behind.',
    registers: [registry],
    async collect() {
      this.set(Math.max(0, ...(await figures()).map((t) => t.outboxOldestSeconds)));
    },
  });
  new Gauge({
    name: 'shade_legs_awaiting_repair',
    help: 'Approval provider legs that FAILED (their sync record), per tenant (its id and subdomain; every tenant, 0 when none): a repair (POST /quotes/{id}/invoice, or reconnecting) is due.',
    labelNames: ['organization_id', 'subdomain'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      // Every tenant, 0 included: a repaired tenant's series falls to 0 rather than vanishing.
      for (const t of await figures()) this.set(labelsOf(t.organizationId), t.legsFailed);
    },
  });
  new Gauge({
    name: 'shade_webhook_endpoints_disabled',
    help: 'Webhook endpoints disabled after failing (D13), per tenant (its id and subdomain; every tenant, 0 when none).',
    labelNames: ['organization_id', 'subdomain'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const t of await figures()) this.set(labelsOf(t.organizationId), t.endpointsDisabled);
    },
  });
  const syncRunLag = sources.syncRunLag ?? noSyncRuns;
  new Gauge({
    name: 'shade_sync_run_lag_seconds',
    help: 'Seconds since the last completed sync run, per tenant (its id and subdomain) and provider (spec 001).',
    labelNames: ['organization_id', 'subdomain', 'provider'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const read = await syncRunLag()
        .then(async (runs) => ({ runs, labels: await tenantLabels(runs.map((run) => run.organizationId)) }))
        .catch(() => {
          readErrors.inc();
          return { runs: [], labels: undefined };
        });
      for (const run of read.runs) this.set({ ...read.labels!(run.organizationId), provider: run.provider }, run.lagSeconds);
    },
  });
  return { registry, providerCalls, webhookAttempts, webhookDeliveries };
}

/** The operations figures of the worker's database role. */
export function operationsFrom(em: EntityManager): () => Promise<TenantOperationsFigures[]> {
  return () => readOperationsFigures(em);
}

/** A free port on loopback, for the Temporal runtime's own Prometheus exporter (never exposed itself). */
export async function freeLoopbackPort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * The Temporal SDK runtime's metrics (`temporal_*`: workflow and activity task latencies, slots,
 * polls, sticky cache), read from its exporter on loopback, to be served with ours.
 */
export function temporalRuntimeMetrics(bindAddress: string): () => Promise<string> {
  return async () => {
    const res = await fetch(`http://${bindAddress}/metrics`, { signal: AbortSignal.timeout(2000) });
    return res.ok ? await res.text() : '';
  };
}

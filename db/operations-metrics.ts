import type { EntityManager } from '@mikro-orm/postgresql';

/** One tenant's figures for the operator's alerts; every tenant has a row, zeros included. */
export interface TenantOperationsFigures {
  organizationId: string;
  outboxUndispatched: number;
  /** Age of the tenant's oldest event not yet dispatched, in seconds (0 with none). */
  outboxOldestSeconds: number;
  legsFailed: number;
  endpointsDisabled: number;
}

/** Through the worker's security-definer door `operations_metrics()` (counts only, across tenants). */
export async function readOperationsFigures(em: EntityManager): Promise<TenantOperationsFigures[]> {
  const rows = await em.fork().execute<{ organization_id: string; outbox_undispatched: string; outbox_oldest_seconds: number; legs_failed: string; endpoints_disabled: string }[]>(
    'select organization_id, outbox_undispatched, outbox_oldest_seconds, legs_failed, endpoints_disabled from operations_metrics()',
  );
  return rows.map((row) => ({
    organizationId: row.organization_id,
    outboxUndispatched: Number(row.outbox_undispatched),
    outboxOldestSeconds: Number(row.outbox_oldest_seconds),
    legsFailed: Number(row.legs_failed),
    endpointsDisabled: Number(row.endpoints_disabled),
  }));
}

/** Seconds since one tenant's last sync run with one provider finished without error (D18). */
export interface SyncRunLagRow {
  organizationId: string;
  provider: string;
  lagSeconds: number;
}

/**
 * Through the worker's door `sync_run_lag()`: nothing while the provider sync's table
 * (`provider_sync_runs`) does not exist; providers as the sync names them (PAYMENTS, ...).
 */
export async function readSyncRunLag(em: EntityManager): Promise<SyncRunLagRow[]> {
  const rows = await em.fork().execute<{ organization_id: string; provider: string; lag_seconds: number }[]>('select organization_id, provider, lag_seconds from sync_run_lag()');
  return rows.map((row) => ({ organizationId: row.organization_id, provider: row.provider.toLowerCase(), lagSeconds: Number(row.lag_seconds) }));
}

/** Every tenant's subdomain by its id, through the worker's door `tenant_subdomains()` (names only). */
export async function readTenantSubdomains(em: EntityManager): Promise<Map<string, string>> {
  const rows = await em.fork().execute<{ organization_id: string; subdomain: string }[]>('select organization_id, subdomain from tenant_subdomains()');
  return new Map(rows.map((row) => [row.organization_id, row.subdomain]));
}

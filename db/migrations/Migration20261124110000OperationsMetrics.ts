import { Migration } from '@mikro-orm/migrations';
import { WORKER_ROLE } from './rls';

/**
 * What an operator's alerts need, counted across tenants through one more
 * security-definer door that belongs to the worker alone (its `/metrics`). It answers counts and
 * ages per tenant, never a row's contents: events not yet dispatched (the outbox's lag), provider
 * legs that failed and await a repair, and webhook endpoints disabled after failing (D13); and a
 * second door for the sync runs' lag per tenant and provider (D18).
 */
export class Migration20261124110000OperationsMetrics extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function operations_metrics()
      returns table (organization_id uuid, outbox_undispatched bigint, outbox_oldest_seconds double precision, legs_failed bigint, endpoints_disabled bigint)
      language sql stable security definer set search_path = public as $$
        with outbox as (
          select o.organization_id, count(*) as pending, extract(epoch from clock_timestamp() - min(o.created_at))::double precision as oldest
            from outbox_events o where o.dispatched_at is null group by o.organization_id
        ), legs as (
          select s.organization_id, count(*) as failed from sync_records s where s.status = 'FAILED' group by s.organization_id
        ), endpoints as (
          select e.organization_id, count(*) as disabled from webhook_endpoints e where e.status = 'disabled' group by e.organization_id
        )
        select org.id, coalesce(outbox.pending, 0), coalesce(outbox.oldest, 0), coalesce(legs.failed, 0), coalesce(endpoints.disabled, 0)
          from organizations org
          left join outbox on outbox.organization_id = org.id
          left join legs on legs.organization_id = org.id
          left join endpoints on endpoints.organization_id = org.id
         where outbox.organization_id is not null or legs.organization_id is not null or endpoints.organization_id is not null
      $$`);
    this.addSql(`revoke all on function operations_metrics() from public`);
    this.addSql(`grant execute on function operations_metrics() to ${WORKER_ROLE}`);

    // The sync runs' lag (D18): seconds since each tenant's last run that finished without error,
    // per provider, for the providers it syncs (payments always; accounting and CRM while
    // CONNECTED: a paused schedule is not late). The table belongs to the provider sync feature
    // (`provider_sync_runs`); until it exists this answers nothing, hence plpgsql and a dynamic query.
    this.addSql(`create function sync_run_lag() returns table (organization_id uuid, provider text, lag_seconds double precision)
      language plpgsql stable security definer set search_path = public as $$
      begin
        if to_regclass('public.provider_sync_runs') is null then
          return;
        end if;
        return query execute $q$
          select r.organization_id, r.provider, extract(epoch from clock_timestamp() - max(r.finished_at))::double precision
            from provider_sync_runs r
           where r.finished_at is not null and r.error is null
             and (r.provider = 'PAYMENTS' or exists (
                   select 1 from integration_connections c
                    where c.organization_id = r.organization_id and c.provider = r.provider and c.status = 'CONNECTED'))
           group by r.organization_id, r.provider
        $q$;
      end
    $$`);
    this.addSql(`revoke all on function sync_run_lag() from public`);
    this.addSql(`grant execute on function sync_run_lag() to ${WORKER_ROLE}`);
  }
}

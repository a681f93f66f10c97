import { Migration } from '@mikro-orm/migrations';

/**
 * `operations_metrics()` answers every tenant, its zeros included, so that the worker exports
 * legs awaiting repair and disabled endpoints as 0 rather than leaving the series out: a repaired
 * tenant's series falls to 0 instead of vanishing, and "none" reads 0, not "no data". Same
 * signature and grants (`create or replace` keeps them), so a worker of the release before reads
 * it unchanged (it skipped zero rows itself).
 */
export class Migration20261126120000OperationsMetricsEveryTenant extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function operations_metrics()
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
      $$`);
  }
}

import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE, WORKER_ROLE, tenantTableSql } from './rls';

/**
 * D18, scheduled provider sync:
 * - `provider_sync_state`: each tenant's watermark per provider (how far its changes were applied);
 *   written in the transaction that applies the changes it covers, so it never passes them;
 * - `provider_sync_runs`: every run (one per scheduled workflow, across continue-as-new), with what
 *   it saw and applied, the watermark before and after, and its error; listed by
 *   `GET /api/v1/integrations/sync-runs`;
 * - the worker reads and records payments events as the webhook does (one de-duplication table).
 */
export class Migration20261124100000ProviderSync extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table provider_sync_state (
      organization_id uuid not null references organizations (id) on delete cascade,
      provider text not null check (provider in ('PAYMENTS', 'ACCOUNTING', 'CRM')),
      watermark text null check (watermark is null or length(watermark) <= 200),
      updated_at timestamptz not null default clock_timestamp(),
      primary key (organization_id, provider)
    )`);
    for (const sql of tenantTableSql('provider_sync_state', 'select')) this.addSql(sql);
    this.addSql(`revoke all on provider_sync_state from ${APP_ROLE}`);
    this.addSql(`grant select, insert, update on provider_sync_state to ${WORKER_ROLE}`);

    this.addSql(`create table provider_sync_runs (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      provider text not null check (provider in ('PAYMENTS', 'ACCOUNTING', 'CRM')),
      workflow_id text not null check (length(workflow_id) <= 300),
      started_at timestamptz not null default clock_timestamp(),
      finished_at timestamptz null,
      seen integer not null default 0 check (seen >= 0),
      applied integer not null default 0 check (applied >= 0),
      watermark_before text null,
      watermark_after text null,
      error text null check (error is null or length(error) <= 2000),
      unique (organization_id, workflow_id)
    )`);
    this.addSql(`create index provider_sync_runs_recent on provider_sync_runs (organization_id, started_at desc, id desc)`);
    for (const sql of tenantTableSql('provider_sync_runs', 'select')) this.addSql(sql);
    this.addSql(`grant select, insert, update on provider_sync_runs to ${WORKER_ROLE}`);

    // The sync handles payments events exactly as the webhook does, de-duplicated with it.
    this.addSql(`grant select, insert on payments_webhook_events to ${WORKER_ROLE}`);
  }
}

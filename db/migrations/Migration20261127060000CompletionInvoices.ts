import { Migration } from '@mikro-orm/migrations';
import { WORKER_ROLE, tenantTableSql } from './rls';

/**
 * The completion invoice of a job (issue 30, document 001 sections 6.1-6.2):
 * - a job may name its customer (`work_orders.customer_id`): a job without a quote is invoiced to
 *   it for time and materials, and cannot complete without one;
 * - `job_completion_invoices`: what completing a job decided, in the completing transaction (the
 *   job's draws as `partsConsumed`, and the lines to bill beyond its quote or for its time and
 *   materials), so the worker's invoice workflow reads one row and never the field tables;
 * - its payments call is recorded in the sync log as a `job_invoice` keyed by the job, which may
 *   have no quote.
 */
export class Migration20261127060000CompletionInvoices extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table work_orders add column customer_id uuid null,
      add foreign key (organization_id, customer_id) references customers (organization_id, id)`);
    this.addSql(`create table job_completion_invoices (
      organization_id uuid not null references organizations(id),
      work_order_id uuid not null,
      quote_id uuid null,
      customer_id uuid null,
      kind text null check (kind in ('beyond_quote', 'time_and_materials')),
      tax_region text null check (tax_region ~ '^[A-Z]{2}-[A-Z]{2}$'),
      lines jsonb not null default '[]'::jsonb,
      subtotal_cents bigint not null default 0 check (subtotal_cents >= 0),
      parts_consumed jsonb not null,
      created_at timestamptz not null default now(),
      primary key (organization_id, work_order_id),
      foreign key (organization_id, work_order_id) references work_orders (organization_id, id),
      foreign key (organization_id, quote_id) references quotes (organization_id, id),
      foreign key (organization_id, customer_id) references customers (organization_id, id),
      check (quote_id is not null or customer_id is not null)
    )`);
    for (const sql of tenantTableSql('job_completion_invoices', 'select, insert')) this.addSql(sql);
    this.addSql(`grant select on job_completion_invoices to ${WORKER_ROLE}`);
    this.addSql(`alter table sync_records alter column quote_id drop not null`);
    this.addSql(`alter table sync_records add constraint sync_records_quote_unless_job check (quote_id is not null or entity_type = 'job_invoice')`);
  }
}

import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE, tenantTableSql } from './rls';

/**
 * The alternate `/v1/quotes` (D14), plan limits (D15) and dated versions (D16).
 * - `catalogue_products`: a tenant's products, each bundling a fabric, a hardware and optionally
 *   a trim SKU of its rate card (D14); the API only reads them (the seed writes them).
 * - quotes get the revision they are at and the tax region they were priced for; every revision
 *   is kept whole in `quote_revisions` (append-only). A new revision replaces the quote's lines,
 *   so the API may delete them.
 * - `idempotency_keys`: D14's keys, per tenant, shared by every API process.
 * - organizations get a plan (D15) and the version pinned at the tenant's first API request
 *   (D16); `plan_buckets` is each tenant's one token bucket, shared by every API process.
 * - webhook endpoints pin the version current at their registration (D16).
 */
export class Migration20261124090000V1Quotes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table catalogue_products (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      sku text not null check (length(sku) between 1 and 64),
      name text not null check (length(name) between 1 and 200),
      fabric_sku_code text not null,
      hardware_sku_code text not null,
      trim_sku_code text null,
      created_at timestamptz not null default now(),
      unique (organization_id, sku)
    )`);
    for (const sql of tenantTableSql('catalogue_products', 'select')) this.addSql(sql);

    this.addSql(`alter table quotes add column revision integer not null default 1 check (revision > 0)`);
    this.addSql(`alter table quotes add column tax_region text null`);
    this.addSql(`create table quote_revisions (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      quote_id uuid not null,
      revision integer not null check (revision > 0),
      rate_card_revision_id uuid not null,
      created_by_user_id uuid null references users(id),
      request jsonb not null,
      quote jsonb not null,
      created_at timestamptz not null default clock_timestamp(),
      foreign key (organization_id, quote_id) references quotes (organization_id, id) on delete cascade,
      foreign key (organization_id, rate_card_revision_id) references rate_card_revisions (organization_id, id),
      unique (quote_id, revision)
    )`);
    for (const sql of tenantTableSql('quote_revisions', 'select, insert')) this.addSql(sql);
    this.addSql(`grant delete on quote_lines to ${APP_ROLE}`);

    this.addSql(`create table idempotency_keys (
      organization_id uuid not null references organizations(id),
      key text not null check (length(key) between 1 and 255),
      fingerprint text not null,
      state text not null check (state in ('running', 'done')),
      response_status integer null,
      response_body text null,
      response_headers jsonb null,
      created_at timestamptz not null default clock_timestamp(),
      primary key (organization_id, key),
      check ((state = 'done') = (response_status is not null))
    )`);
    for (const sql of tenantTableSql('idempotency_keys')) this.addSql(sql);

    this.addSql(`alter table organizations add column plan text not null default 'starter' check (plan in ('starter', 'growth', 'enterprise'))`);
    this.addSql(`alter table organizations add column api_version text null check (api_version is null or api_version ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$')`);
    this.addSql(`grant update (api_version) on organizations to ${APP_ROLE}`);
    this.addSql(`create table plan_buckets (
      organization_id uuid primary key references organizations(id),
      tokens double precision not null check (tokens >= 0),
      allowed boolean not null,
      updated_at timestamptz not null
    )`);
    for (const sql of tenantTableSql('plan_buckets', 'select, insert, update')) this.addSql(sql);

    // D16. (The formats migration adds the same column: whichever runs second must skip it.)
    this.addSql(`alter table webhook_endpoints add column if not exists api_version text null check (api_version is null or api_version ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$')`);
  }
}

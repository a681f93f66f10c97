import { Migration } from '@mikro-orm/migrations';
import { tenantTableSql } from './rls';

/**
 * D2 rate cards (versioned: a change makes a new revision with its full set of SKUs and tiers, so
 * a quote priced on an old revision can always be explained), customers, quotes with their lines,
 * and the per-tenant quote number counter.
 */
export class Migration20261121010000Quotes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table rate_card_revisions (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      revision timestamptz not null default clock_timestamp(),
      created_at timestamptz not null default now(),
      margin_floor numeric not null check (margin_floor >= 0 and margin_floor < 1),
      fabric_waste_factor numeric not null check (fabric_waste_factor >= 0),
      labour_base_hours_per_unit numeric not null check (labour_base_hours_per_unit >= 0),
      labour_hours_per_square_foot numeric not null check (labour_hours_per_square_foot >= 0),
      labour_motorisation_hours numeric not null check (labour_motorisation_hours >= 0),
      tube_deduction_inches numeric not null check (tube_deduction_inches >= 0),
      hembar_deduction_inches numeric not null check (hembar_deduction_inches >= 0),
      fabric_width_deduction_inches numeric not null check (fabric_width_deduction_inches >= 0),
      fabric_drop_allowance_inches numeric not null check (fabric_drop_allowance_inches >= 0),
      unique (organization_id, revision),
      unique (organization_id, id)
    )`);
    for (const sql of tenantTableSql('rate_card_revisions')) this.addSql(sql);

    this.addSql(`create table rate_card_skus (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      revision_id uuid not null,
      code text not null check (length(code) between 1 and 64),
      component text not null check (component in ('fabric', 'hardware', 'motor', 'trim')),
      description text not null,
      unit text not null check (unit in ('sq_ft', 'each', 'linear_ft')),
      unit_cost_cents numeric not null check (unit_cost_cents >= 0),
      active boolean not null default true,
      foreign key (organization_id, revision_id) references rate_card_revisions (organization_id, id),
      unique (revision_id, code)
    )`);
    for (const sql of tenantTableSql('rate_card_skus')) this.addSql(sql);

    this.addSql(`create table rate_card_labour_tiers (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      revision_id uuid not null,
      code text not null check (length(code) between 1 and 32),
      name text not null,
      hourly_rate_cents integer not null check (hourly_rate_cents >= 0),
      multiplier numeric not null check (multiplier > 0),
      foreign key (organization_id, revision_id) references rate_card_revisions (organization_id, id),
      unique (revision_id, code)
    )`);
    for (const sql of tenantTableSql('rate_card_labour_tiers')) this.addSql(sql);

    this.addSql(`create table customers (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      created_at timestamptz not null default now(),
      name text not null check (length(name) between 1 and 200),
      email text null check (length(email) <= 320),
      unique (organization_id, id)
    )`);
    // A customer with an email is one customer per tenant, however many quotes name it.
    this.addSql(`create unique index customers_org_email_unique on customers (organization_id, lower(email)) where email is not null`);
    for (const sql of tenantTableSql('customers')) this.addSql(sql);

    this.addSql(`create table quote_number_counters (
      organization_id uuid primary key references organizations(id),
      last_number integer not null check (last_number > 0)
    )`);
    for (const sql of tenantTableSql('quote_number_counters')) this.addSql(sql);

    this.addSql(`create table quotes (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      quote_number integer not null check (quote_number > 0),
      status text not null check (status in ('DRAFT', 'SENT', 'APPROVED', 'REJECTED', 'EXPIRED')),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      created_by_user_id uuid null references users(id),
      customer_id uuid null,
      rate_card_revision_id uuid not null,
      labor_tier_code text not null,
      margin_floor numeric not null,
      applied_margin numeric not null,
      floor_overridden boolean not null,
      override_reason text null check (length(override_reason) between 10 and 500),
      total_cost_cents bigint not null,
      total_amount_cents bigint not null,
      margin_percent numeric not null,
      request jsonb not null,
      calculation jsonb not null,
      frozen_calculation jsonb null,
      sent_at timestamptz null,
      rejected_at timestamptz null,
      approved_at timestamptz null,
      approved_by_user_id uuid null references users(id),
      expired_at timestamptz null,
      paid_at timestamptz null,
      foreign key (organization_id, customer_id) references customers (organization_id, id),
      foreign key (organization_id, rate_card_revision_id) references rate_card_revisions (organization_id, id),
      unique (organization_id, quote_number),
      unique (organization_id, id),
      check (floor_overridden = (override_reason is not null))
    )`);
    this.addSql(`create index quotes_newest_first on quotes (organization_id, created_at desc, id desc)`);
    this.addSql(`create index quotes_status_newest_first on quotes (organization_id, status, created_at desc, id desc)`);
    for (const sql of tenantTableSql('quotes')) this.addSql(sql);

    this.addSql(`create table quote_lines (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      quote_id uuid not null,
      position integer not null check (position >= 0),
      reference text null check (length(reference) <= 120),
      width_inches numeric not null check (width_inches > 0),
      drop_inches numeric not null check (drop_inches > 0),
      quantity integer not null check (quantity between 1 and 500),
      fabric_sku_code text not null,
      hardware_sku_code text not null,
      motor_sku_code text null,
      trim_sku_code text null,
      cost_cents bigint not null,
      price_cents bigint not null,
      foreign key (organization_id, quote_id) references quotes (organization_id, id) on delete cascade,
      unique (quote_id, position)
    )`);
    for (const sql of tenantTableSql('quote_lines')) this.addSql(sql);
  }
}

import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE, APPEND_ONLY, WORKER_ROLE, tenantTableSql } from './rls';

/**
 * D21: the rate card becomes the tenant's price book of immutable revisions.
 * - `effective_from`: when a revision becomes current. Which revision is current at an instant is
 *   decided by it alone (`rate_card_revision_at`), never by a flag a timer flips, so a quote priced
 *   a moment after a future revision's instant uses it even if the announcing workflow is late.
 *   Earlier revisions take their own stamp.
 * - `rate_card_products`: the products (D14) each published revision lists whole. Revisions made
 *   before D21 (the seed's) list none (`products_listed` false) and answer the tenant's
 *   `catalogue_products`; the first publication copies those into its own rows.
 * - The API publishes (insert, never update or delete: a revision is never edited); the worker
 *   reads a revision to announce it (`pricebook.published`).
 */
export class Migration20261127030000Pricebook extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table rate_card_revisions add column effective_from timestamptz null`);
    this.addSql(`alter table rate_card_revisions add column products_listed boolean not null default false`);
    this.addSql(`alter table rate_card_revisions add column published_by_user_id uuid null references users(id)`);
    this.addSql(`update rate_card_revisions set effective_from = revision`);
    this.addSql(`alter table rate_card_revisions alter column effective_from set not null`);
    this.addSql(`create function rate_card_revision_effective_default() returns trigger language plpgsql as $$
      begin
        if new.effective_from is null then new.effective_from := new.revision; end if;
        return new;
      end
    $$`);
    this.addSql(`create trigger rate_card_revision_effective_default before insert on rate_card_revisions
      for each row execute function rate_card_revision_effective_default()`);
    this.addSql(`create index rate_card_revisions_effective on rate_card_revisions (organization_id, effective_from desc, revision desc)`);

    // The revision current at an instant, under the caller's row-level security (security invoker).
    this.addSql(`create function rate_card_revision_at(p_at timestamptz) returns uuid language sql stable as $$
      select id from rate_card_revisions where effective_from <= p_at order by effective_from desc, revision desc limit 1
    $$`);
    this.addSql(`revoke all on function rate_card_revision_at(timestamptz) from public`);
    this.addSql(`grant execute on function rate_card_revision_at(timestamptz) to ${APP_ROLE}, ${WORKER_ROLE}`);
    this.addSql(`create or replace function app_current_rate_card_revision(p_organization_id uuid) returns uuid language plpgsql volatile as $$
      begin
        if app_current_organization() is not null then
          raise exception 'app_current_rate_card_revision selects its own tenant: call it outside a tenant transaction';
        end if;
        perform app_enter_tenant(p_organization_id);
        return rate_card_revision_at(now());
      end
    $$`);

    this.addSql(`create table rate_card_products (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      revision_id uuid not null,
      product_id uuid not null,
      sku text not null check (length(sku) between 1 and 64),
      name text not null check (length(name) between 1 and 200),
      fabric_sku_code text not null,
      hardware_sku_code text not null,
      trim_sku_code text null,
      active boolean not null default true,
      foreign key (organization_id, revision_id) references rate_card_revisions (organization_id, id),
      unique (revision_id, sku)
    )`);
    for (const sql of tenantTableSql('rate_card_products', APPEND_ONLY)) this.addSql(sql);
    this.addSql(`create index rate_card_products_revision on rate_card_products (organization_id, revision_id)`);

    this.addSql(`grant insert on rate_card_revisions, rate_card_skus, rate_card_labour_tiers to ${APP_ROLE}`);
    this.addSql(`grant select on rate_card_revisions to ${WORKER_ROLE}`);
  }
}

import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE, WORKER_ROLE } from './rls';

/**
 * D22, D11, D3, D23: the tenant's settings and its standing.
 * - Settings the ADMIN changes through `PATCH /api/v1/organization` (the API may update exactly
 *   these columns). Null means "the default" (domain/organizations/settings.ts applies it), so a
 *   default can change without rewriting rows. The checks repeat the domain's bounds as the last
 *   line of defence.
 * - `suspended_at`: a suspended tenant answers 403 everywhere; only the operator (the owner) sets it.
 * - Provisioning (`ops tenant create`, a Temporal workflow run by the worker): the worker may make
 *   an organization only through one security-definer door, and may write a new tenant's first
 *   rate-card revision, products and first ADMIN inside that tenant's transaction (row-level
 *   security still applies).
 */
export class Migration20261127020000TenantSettings extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table organizations
      add column display_name text null check (display_name is null or length(display_name) between 1 and 200),
      add column time_zone text null check (time_zone is null or length(time_zone) between 1 and 64),
      add column working_day_start text null check (working_day_start is null or working_day_start ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
      add column depot_lat double precision null check (depot_lat between -90 and 90),
      add column depot_lon double precision null check (depot_lon between -180 and 180),
      add column road_factor numeric(4, 2) null check (road_factor between 1 and 3),
      add column average_speed_kmh integer null check (average_speed_kmh between 5 and 130),
      add column overtime_cap_minutes integer null check (overtime_cap_minutes between 0 and 480),
      add column eta_drift_threshold_minutes integer null check (eta_drift_threshold_minutes between 1 and 240),
      add column dispatch_coalesce_seconds integer null check (dispatch_coalesce_seconds between 0 and 300),
      add column suspended_at timestamptz null,
      add constraint organizations_depot_whole check ((depot_lat is null) = (depot_lon is null)),
      add constraint organizations_quote_validity_days_bounded check (quote_validity_days between 1 and 365)`);
    this.addSql(`grant update (display_name, time_zone, working_day_start, quote_validity_days, depot_lat, depot_lon, road_factor,
      average_speed_kmh, overtime_cap_minutes, eta_drift_threshold_minutes, dispatch_coalesce_seconds) on organizations to ${APP_ROLE}`);

    // The one way the worker makes a workspace: idempotent by subdomain, answering whether it
    // was made now (a second run changes nothing and says so).
    this.addSql(`create function provision_organization(p_subdomain text, p_name text, p_plan text)
      returns table (id uuid, created boolean)
      language plpgsql volatile security definer set search_path = public as $$
        begin
          return query insert into organizations as o (subdomain, name, plan) values (p_subdomain, p_name, p_plan)
            on conflict (subdomain) do nothing returning o.id, true;
          if not found then
            return query select o.id, false from organizations o where o.subdomain = p_subdomain;
          end if;
        end
      $$`);
    this.addSql(`revoke all on function provision_organization(text, text, text) from public`);
    this.addSql(`grant execute on function provision_organization(text, text, text) to ${WORKER_ROLE}`);
    for (const table of ['rate_card_revisions', 'rate_card_skus', 'rate_card_labour_tiers', 'catalogue_products']) {
      this.addSql(`grant select, insert on "${table}" to ${WORKER_ROLE}`);
    }
    this.addSql(`grant select, insert on users to ${WORKER_ROLE}`);
  }
}

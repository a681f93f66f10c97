import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE, WORKER_ROLE } from './rls';

/**
 * D13, the email and deliveries-page parts:
 * - the tenant's technical contact (`GET/PATCH /api/v1/organization`): a column the API may
 *   change (and nothing else of the row), and one security-definer door that answers the
 *   effective contact of the tenant selected (the setting, else the first ADMIN's email), so the
 *   worker can address a notice without being able to read `users`;
 * - when an endpoint was disabled (`disabled_at`), the key of the one email that says so, and
 *   the notices sent (`webhook_endpoint_notices`, one per endpoint and disabling);
 * - each attempt's request (headers, body) and the response's headers, for the deliveries page.
 */
export class Migration20261124070000DeveloperWebhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table organizations add column technical_contact_email text null
      check (technical_contact_email is null or (length(technical_contact_email) between 3 and 320 and technical_contact_email like '%_@_%'))`);
    this.addSql(`grant update (technical_contact_email) on organizations to ${APP_ROLE}`);
    // Active administrators first, then the oldest: "the first ADMIN" (D13).
    this.addSql(`create function organization_technical_contact() returns table (email text, is_default boolean)
      language sql stable security definer set search_path = public as $$
        select coalesce(o.technical_contact_email,
                        (select u.email from users u where u.organization_id = o.id and u.role = 'ADMIN'
                          order by u.active desc, u.created_at, u.id limit 1)),
               o.technical_contact_email is null
          from organizations o where o.id = app_current_organization()
      $$`);
    this.addSql(`revoke all on function organization_technical_contact() from public`);
    this.addSql(`grant execute on function organization_technical_contact() to ${APP_ROLE}, ${WORKER_ROLE}`);

    this.addSql(`alter table webhook_endpoints add column disabled_at timestamptz null`);

    this.addSql(`alter table webhook_delivery_attempts
      add column request_headers jsonb null,
      add column request_body text null,
      add column response_headers jsonb null`);
    // The notice names the failures: the worker reads the attempts it wrote.
    this.addSql(`grant select on webhook_delivery_attempts to ${WORKER_ROLE}`);

    this.addSql(`create table webhook_endpoint_notices (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      endpoint_id uuid not null,
      disabled_at timestamptz not null,
      recipient text not null,
      message_id text not null,
      sent_at timestamptz not null default clock_timestamp(),
      foreign key (organization_id, endpoint_id) references webhook_endpoints (organization_id, id) on delete cascade,
      unique (endpoint_id, disabled_at)
    )`);
    this.addSql(`alter table webhook_endpoint_notices enable row level security`);
    this.addSql(`create policy tenant_isolation on webhook_endpoint_notices using (organization_id = app_current_organization()) with check (organization_id = app_current_organization())`);
    this.addSql(`grant select, insert on webhook_endpoint_notices to ${WORKER_ROLE}`);
  }
}

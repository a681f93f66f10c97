import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE, tenantTableSql } from './rls';

/**
 * D24: the contractor on the customer's quote page and PDF.
 * - The workspace's business address, phone and quote terms: settings the ADMIN changes through
 *   `PATCH /api/v1/organization` (null: none, or the default terms). The checks repeat the
 *   domain's limits (domain/organizations/settings.ts) as the last line of defence.
 * - Its logo (`PUT /api/v1/organization/logo`): one row per workspace, PNG or JPEG, at most
 *   256 KB, kept here with its SHA-256 (what the audit log records of it).
 */
export class Migration20261128180000ContractorOnQuotes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table organizations
      add column business_address text null check (business_address is null or length(business_address) between 1 and 500),
      add column business_phone text null check (business_phone is null or length(business_phone) between 1 and 40),
      add column quote_terms text null check (quote_terms is null or length(quote_terms) between 1 and 4000)`);
    this.addSql(`grant update (business_address, business_phone, quote_terms) on organizations to ${APP_ROLE}`);
    this.addSql(`create table organization_logos (
      organization_id uuid primary key references organizations(id),
      content_type text not null check (content_type in ('image/png', 'image/jpeg')),
      bytes bytea not null check (octet_length(bytes) between 1 and 262144),
      sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
      width integer not null check (width > 0),
      height integer not null check (height > 0),
      updated_at timestamptz not null default now()
    )`);
    for (const sql of tenantTableSql('organization_logos')) this.addSql(sql);
  }
}

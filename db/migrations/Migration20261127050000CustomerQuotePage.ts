import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE, tenantTableSql } from './rls';

/**
 * D24, the customer's side of a quote:
 * - `quote_page_tokens`: the links `POST /quotes/{id}/send` emails, kept only as SHA-256 hashes
 *   (a database reader cannot rebuild a link), each naming one quote, with the expiry of D3's
 *   validity and `voided_at` once a new send replaced it;
 * - on `quotes`: who sent it (the customer's acceptance is approved as that user), the acceptance
 *   (typed name, time, client address, user agent) and the reason of a customer's decline;
 * - one security-definer door, `quote_page_token_tenant`, that names the tenant of a token's hash
 *   so that the page (which has no login) can select that tenant and read everything else under
 *   row-level security like any request.
 */
export class Migration20261127050000CustomerQuotePage extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table quote_page_tokens (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      quote_id uuid not null,
      token_hash bytea not null unique check (length(token_hash) = 32),
      sent_by_user_id uuid not null references users(id),
      expires_at timestamptz not null,
      voided_at timestamptz null,
      created_at timestamptz not null default now(),
      foreign key (organization_id, quote_id) references quotes (organization_id, id)
    )`);
    this.addSql(`create index quote_page_tokens_quote on quote_page_tokens (quote_id, created_at desc)`);
    this.addSql(`create index quote_page_tokens_sender on quote_page_tokens (sent_by_user_id)`);
    for (const sql of tenantTableSql('quote_page_tokens', 'select, insert, update')) this.addSql(sql);

    this.addSql(`alter table quotes
      add column sent_by_user_id uuid null references users(id),
      add column acceptance_name text null check (acceptance_name is null or length(acceptance_name) between 1 and 200),
      add column acceptance_at timestamptz null,
      add column acceptance_address text null,
      add column acceptance_user_agent text null,
      add column customer_declined_at timestamptz null,
      add column customer_decline_reason text null check (customer_decline_reason is null or length(customer_decline_reason) <= 2000)`);
    this.addSql(`create index quotes_sent_by_user on quotes (sent_by_user_id) where sent_by_user_id is not null`);

    this.addSql(`create function quote_page_token_tenant(p_token_hash bytea) returns uuid
      language sql stable security definer set search_path = public as $$
        select organization_id from quote_page_tokens where token_hash = p_token_hash
      $$`);
    this.addSql(`revoke all on function quote_page_token_tenant(bytea) from public`);
    this.addSql(`grant execute on function quote_page_token_tenant(bytea) to ${APP_ROLE}`);
  }
}

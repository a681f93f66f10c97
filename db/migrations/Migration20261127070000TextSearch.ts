import { Migration } from '@mikro-orm/migrations';

/**
 * Search by text (`q`) over quotes (customer name, reference), customers (name, email) and jobs
 * (site, customer): a substring match (`ilike '%…%'`), which trigram GIN indexes answer without
 * reading the whole table. pg_trgm ships with PostgreSQL (and with the embedded server the tests
 * run). Row-level security still decides which rows a tenant sees; the indexes only find them.
 */
export class Migration20261127070000TextSearch extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create extension if not exists pg_trgm`);
    // Name and email as one text (db/quotes/customer-directory.ts asks exactly this expression), so
    // one index answers "in the name or the email"; the quotes list and the jobs feed find a
    // customer by name through it too.
    this.addSql(`create index customers_text_trgm on customers using gin ((name || ' ' || coalesce(email, '')) gin_trgm_ops)`);
    this.addSql(`create index sites_name_trgm on sites using gin (name gin_trgm_ops)`);
    // The reference as /v1/ shows it (Q-<number>), so `q=Q-12` finds quote 12 through an index too.
    this.addSql(`create index quotes_reference_trgm on quotes using gin (('Q-' || quote_number::text) gin_trgm_ops)`);
  }
}

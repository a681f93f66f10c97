import { Migration } from '@mikro-orm/migrations';

/**
 * D11: completing a job is never refused for what the price book lacks. A completion invoice the
 * price book cannot price (no price book, no STANDARD labour tier for a job without a quote, or a
 * drawn SKU no revision prices) is kept waiting with what is missing (`awaiting_price`, null once
 * priced), listed by `npm run ops -- failed` and shown in the job's money; `npm run ops -- retry
 * --job` (as the owner) prices it again on the price book then current and issues it.
 */
export class Migration20261128193000CompletionInvoicePrices extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table job_completion_invoices add column awaiting_price jsonb null`);
  }
}

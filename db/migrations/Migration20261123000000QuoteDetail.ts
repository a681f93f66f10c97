import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE } from './rls';

/**
 * GET /api/v1/quotes/{id} answers a quote with its lines, so the API now reads `quote_lines`
 * (until then it only wrote them). Least privilege: exactly that grant, nothing else.
 */
export class Migration20261123000000QuoteDetail extends Migration {
  override async up(): Promise<void> {
    this.addSql(`grant select on "quote_lines" to ${APP_ROLE}`);
  }

  override async down(): Promise<void> {
    this.addSql(`revoke select on "quote_lines" from ${APP_ROLE}`);
  }
}

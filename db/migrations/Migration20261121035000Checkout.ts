import { Migration } from '@mikro-orm/migrations';

/** The payments provider's hosted checkout page of a quote, so an open one is reused (4.3). */
export class Migration20261121035000Checkout extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table quotes add column checkout_session_id text null`);
  }
}

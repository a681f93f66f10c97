import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE } from './rls';

/**
 * The office gives a job its customer (D11, issue "a job must always be completable"):
 * - a completion invoice may wait for a customer: a job without a quote completed without one
 *   keeps its time-and-materials invoice with no customer (`customer_id` null), listed by
 *   `npm run ops -- failed` and shown in the job's money, until the office sets one;
 * - setting the customer binds that waiting invoice (the application may update a completion
 *   invoice's `customer_id`, nothing else; the row is still never deleted);
 * - the job's history records the change (`kind` `customer`).
 */
export class Migration20261128180100JobCustomer extends Migration {
  override async up(): Promise<void> {
    this.addSql(`do $$ declare c text; begin
      select conname into c from pg_constraint where conrelid = 'job_completion_invoices'::regclass and contype = 'c'
         and pg_get_constraintdef(oid) like '%quote_id IS NOT NULL%customer_id IS NOT NULL%';
      if c is not null then execute format('alter table job_completion_invoices drop constraint %I', c); end if;
    end $$`);
    // Without a quote and without a customer, only time and materials can be waiting.
    this.addSql(`alter table job_completion_invoices add constraint job_completion_invoices_billed_to
      check (quote_id is not null or customer_id is not null or kind = 'time_and_materials')`);
    this.addSql(`grant update (customer_id) on job_completion_invoices to ${APP_ROLE}`);

    this.addSql(`do $$ declare c text; begin
      select conname into c from pg_constraint where conrelid = 'job_history'::regclass and contype = 'c' and pg_get_constraintdef(oid) like '%kind%';
      if c is not null then execute format('alter table job_history drop constraint %I', c); end if;
    end $$`);
    this.addSql(`alter table job_history add constraint job_history_kind_check
      check (kind in ('created', 'status', 'crew', 'time_entry', 'material_draw', 'change_order', 'route', 'customer'))`);
  }
}

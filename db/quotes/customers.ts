import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../tenant-scope';

/** The payments provider's customer id, kept so that later invoices reuse the same customer. */
export async function rememberPaymentsCustomer(em: EntityManager, organizationId: string, customerId: string, paymentsCustomerId: string): Promise<void> {
  await inTenant(em, organizationId, (tx) => tx.execute('update customers set payments_customer_id = ? where id = ?', [paymentsCustomerId, customerId]));
}

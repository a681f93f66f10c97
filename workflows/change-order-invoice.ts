import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ChangeOrderInvoiceWorkflow } from '../infra/temporal/contracts';
import { databaseProfile, providerLegProfile } from './activity-profiles';

/**
 * D12: an approved change order on an approved quote is invoiced for its delta: the payments
 * leg alone (customer, one line, the tax lines of the quote's region (D25), a finalised net-14
 * invoice), every call keyed by the change order, then its sync record. Id:
 * `change-order-invoice-<id>` (one per change order, ever); the quote's own approval and its
 * `quote.approved` are never run again.
 */
export const changeOrderInvoice: ChangeOrderInvoiceWorkflow = async function changeOrderInvoice(input) {
  const timing = input.timing ?? {};
  const db = proxyActivities<Activities>(databaseProfile(timing));
  const payments = proxyActivities<Activities>(providerLegProfile(timing));
  const ref = { organizationId: input.organizationId, changeOrderId: input.changeOrderId };
  try {
    const invoice = await payments.writeChangeOrderInvoice(ref);
    await db.recordChangeOrderInvoice({ ...ref, status: 'SUCCEEDED', externalId: invoice.invoiceId, amountCents: invoice.totalCents });
    return { status: 'SUCCEEDED', externalId: invoice.invoiceId };
  } catch (error) {
    const message = error instanceof ActivityFailure && error.cause ? error.cause.message : error instanceof ApplicationFailure || error instanceof Error ? error.message : String(error);
    await db.recordChangeOrderInvoice({ ...ref, status: 'FAILED', lastError: message });
    return { status: 'FAILED', error: message };
  }
};

import { defineQuery, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ChangeOrderInvoiceProgress, ChangeOrderInvoiceProgressQuery, ChangeOrderInvoiceWorkflow } from '../infra/temporal/contracts';
import { databaseProfile, providerLegProfile } from './activity-profiles';
import { failureMessage, repairableCall } from './repairable-call';

const progress: ChangeOrderInvoiceProgressQuery = defineQuery<ChangeOrderInvoiceProgress, [], 'changeOrderInvoiceProgress'>('changeOrderInvoiceProgress');

/**
 * D12: an approved change order on an approved quote is invoiced for its delta (or credited, when
 * it takes work away) with the tax lines of the quote's region (D25): one payments call keyed by
 * the change order, then its sync record. Id: `change-order-invoice-<id>` (one per change order,
 * ever); the quote's own approval and its `quote.approved` are never run again. A call that
 * FAILED waits for its repair (D19, workflows/repairable-call.ts).
 */
export const changeOrderInvoice: ChangeOrderInvoiceWorkflow = async function changeOrderInvoice(input) {
  const timing = input.timing ?? {};
  const db = proxyActivities<Activities>(databaseProfile(timing));
  const payments = proxyActivities<Activities>(providerLegProfile(timing));
  const ref = { organizationId: input.organizationId, changeOrderId: input.changeOrderId };
  return repairableCall({
    progress,
    what: 'change order',
    call: async () => {
      try {
        const invoice = await payments.writeChangeOrderInvoice(ref);
        await db.recordChangeOrderInvoice({ ...ref, status: 'SUCCEEDED', externalId: invoice.invoiceId, amountCents: invoice.totalCents });
        return { status: 'SUCCEEDED', externalId: invoice.invoiceId };
      } catch (error) {
        const message = failureMessage(error);
        await db.recordChangeOrderInvoice({ ...ref, status: 'FAILED', lastError: message });
        return { status: 'FAILED', error: message };
      }
    },
  });
};

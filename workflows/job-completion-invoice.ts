import { defineQuery, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { JobCompletionInvoiceProgress, JobCompletionInvoiceProgressQuery, JobCompletionInvoiceWorkflow } from '../infra/temporal/contracts';
import { databaseProfile, providerLegProfile } from './activity-profiles';
import { failureMessage, repairableCall } from './repairable-call';

const progress: JobCompletionInvoiceProgressQuery = defineQuery<JobCompletionInvoiceProgress, [], 'jobCompletionInvoiceProgress'>('jobCompletionInvoiceProgress');

/**
 * Issue 30 (document 001 sections 6.1-6.2): a completed job's invoice. With an approved quote, the
 * draws beyond the quote's bill of materials are one more invoice on the quote (net 14, the
 * quote's region's tax), and the quote's invoice is announced again with the job's
 * `partsConsumed`; without a quote, the job's time and materials are invoiced to its customer
 * with the site's region's tax. One payments call keyed by the job, then its sync record and its
 * `invoice.generated` events, as a change order's invoice (workflows/change-order-invoice.ts):
 * a call that FAILED waits for its repair (D19). Id: `job-completion-invoice-<job id>`.
 */
export const jobCompletionInvoice: JobCompletionInvoiceWorkflow = async function jobCompletionInvoice(input) {
  const timing = input.timing ?? {};
  const db = proxyActivities<Activities>(databaseProfile(timing));
  const payments = proxyActivities<Activities>(providerLegProfile(timing));
  const ref = { organizationId: input.organizationId, jobId: input.jobId };
  return repairableCall({
    progress,
    what: 'job',
    call: async () => {
      try {
        const written = await payments.writeJobCompletionInvoice(ref);
        await db.recordJobCompletionInvoice({ ...ref, status: 'SUCCEEDED', ...written });
        return { status: 'SUCCEEDED', externalId: written.invoiceId ?? written.quoteInvoiceId };
      } catch (error) {
        const message = failureMessage(error);
        await db.recordJobCompletionInvoice({ ...ref, status: 'FAILED', lastError: message });
        return { status: 'FAILED', error: message };
      }
    },
  });
};

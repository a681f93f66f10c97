import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventEnvelope } from '../../domain/events/catalogue';
import type { AuditActor } from '../../domain/audit/audit-entry';
import { decideCustomerChange } from '../../domain/invoicing/completion-invoice';
import { conflict } from '../../domain/errors/errors';
import { recordAuditEvent } from '../audit/audit-events';
import { recordEvents } from '../events/outbox';
import { recordWorkOrderNote } from '../work-orders/work-orders';
import { bindCompletionInvoiceCustomer, storedCompletionInvoice } from './completion-invoices';
import { recordJobHistory, type LockedJob } from './jobs';

/**
 * D11: the office gives a job its customer, the one a job without a quote is invoiced to
 * (`PATCH /api/v1/work-orders/{id}` `customerId`, `PATCH /v1/fsm/jobs/{id}` `customer_id`, ADMIN).
 * In the caller's tenant transaction, the job locked by the caller (the sync clock first, then the
 * row, as every job writer) and the customer already found in the tenant by the caller (each
 * interface refuses an unknown one its own way). domain `decideCustomerChange` judges; a
 * completed job's invoice waiting for a customer is bound to it, and the change's
 * `job.customer_changed` then starts that invoice's workflow (infra/temporal/event-workflows.ts).
 * Writes the job's history and the work order's, the audit event (D22) and the event; returns
 * the events, for dispatch after the commit (none when the customer is the one it has).
 */
export async function setJobCustomer(
  em: EntityManager,
  organizationId: string,
  change: { job: LockedJob; customerId: string | null; userId: string; audit: { actor: AuditActor; requestId: string | null } },
): Promise<EventEnvelope[]> {
  const { job, customerId } = change;
  const invoice = await storedCompletionInvoice(em, job.id);
  const decision = decideCustomerChange({ quoteId: job.quote_id, jobStatus: job.job_status, customerId: job.customer_id, invoice: invoice ? { customerId: invoice.customerId } : null }, customerId);
  if (decision.kind === 'refused') throw conflict(decision.reason);
  if (decision.kind === 'unchanged') return [];
  await em.execute('update work_orders set customer_id = ? where id = ?', [customerId, job.id]);
  const released = decision.bindsInvoice && customerId !== null ? await bindCompletionInvoiceCustomer(em, job.id, customerId) : false;
  const changedAt = await recordJobHistory(em, { jobId: job.id, kind: 'customer', userId: change.userId, detail: { from: job.customer_id, to: customerId, invoice_released: released } });
  await recordWorkOrderNote(em, {
    workOrderId: job.id,
    status: job.status,
    changedByUserId: change.userId,
    notes: `Customer: ${job.customer_id ?? 'none'} → ${customerId ?? 'none'}${released ? '; the completion invoice waiting for a customer is issued to it' : ''}`,
  });
  await recordAuditEvent(em, organizationId, {
    actor: change.audit.actor,
    requestId: change.audit.requestId,
    action: 'work_order.customer_changed',
    entityType: 'work_order',
    entityId: job.id,
    changes: [{ field: 'customer_id', before: job.customer_id, after: customerId }],
  });
  return recordEvents(em, organizationId, [
    {
      event: 'job.customer_changed',
      data: { job_id: job.id, customer_id: customerId, previous_customer_id: job.customer_id, invoice_released: released, changed_by_user_id: change.userId, changed_at: changedAt.toISOString() },
      at: changedAt,
    },
  ]);
}

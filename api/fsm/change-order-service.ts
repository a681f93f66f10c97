import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { conflict, forbidden, jobNotFound, notFound, validationFailed } from '../../domain/errors/errors';
import type { Caller } from '../http/request-context';
import type { EventDispatcher } from '../../infra/events/dispatcher';
import type { EventEnvelope } from '../../domain/events/catalogue';
import type { EventData } from '../../domain/events/event-data';
import { recordEvent } from '../../db/events/outbox';
import { userFullName } from '../../db/users';
import { lockJob, lockJobClock, recordJobHistory, touchJobs } from '../../db/fsm/jobs';
import { TERMINAL_JOB_STATUSES } from '../../domain/jobs/job-status-table';
import { approveChangeOrder, changeOrderById, insertChangeOrder, jobQuote, jobValueCents, rejectChangeOrder, tenantMarginFloor } from '../../db/fsm/change-orders';
import type { ChangeOrderRow } from '../../db/fsm/field-writes';
import type { RateCardRepository } from '../../db/rate-cards/repository';
import { refusedAtOwnPath } from '../../domain/pricing/errors';
import { priceChangeOrder } from '../../domain/pricing/change-order-pricing';
import { toChangeOrder } from './change-order-view';
import { visibilityOf } from './job-service';
import type { ApproveChangeOrderBody, ChangeOrder, ChangeOrderBody } from './schemas';

/** The engine names fields of the calculate body (`lineItems.0.fabricSkuCode`); here they are `line_items.0.fabricSkuCode`. */
const fieldOf = (enginePath: string) => enginePath.replace(/^lineItems/, 'line_items').replace(/^laborTierCode$/, 'line_items');

/** D12: change orders, raised, approved and rejected in the field. */
export class ChangeOrderService {
  constructor(
    private readonly em: EntityManager,
    private readonly rateCards: RateCardRepository,
    private readonly events?: EventDispatcher,
  ) {}

  async raise(caller: Caller, jobId: string, body: ChangeOrderBody): Promise<ChangeOrder> {
    const { view, events } = await inTenant(this.em, caller.organizationId, async (tx) => {
      await lockJobClock(tx);
      const job = await lockJob(tx, jobId, visibilityOf(caller));
      if (!job) throw jobNotFound();
      if (TERMINAL_JOB_STATUSES.includes(job.job_status)) throw conflict(`The job is ${job.job_status}: it takes no more change orders.`);
      const quote = await jobQuote(tx, jobId);
      if (!quote) throw conflict('The job has no quote: a change order is priced on its quote\'s rate card.');
      const rateCard = await this.rateCards.byId(tx, quote.rate_card_revision_id);
      const tenantFloor = await tenantMarginFloor(tx);
      const priced = refusedAtOwnPath(
        () => priceChangeOrder({ lineItems: body.line_items, extraLabourHours: String(body.labour_hours), rateCard, labourTierCode: quote.labor_tier_code, quoteMargin: quote.applied_margin, tenantFloor }),
        fieldOf,
      );
      const row = await insertChangeOrder(tx, {
        jobId,
        quoteId: quote.quote_id,
        reason: body.reason,
        request: body,
        calculation: { lines: priced.lines, extra_labour: priced.extraLabour },
        labourHours: priced.labourHours,
        materialCostCents: priced.materialCostCents,
        directCostCents: priced.directCostCents,
        sellCents: priced.sellCents,
        previousValueCents: await jobValueCents(tx, jobId),
        appliedMargin: priced.appliedMargin,
        floorEngaged: priced.floorEngaged,
        raisedBy: caller.userId,
      });
      await recordJobHistory(tx, { jobId, kind: 'change_order', userId: caller.userId, to: 'submitted', detail: { change_order_id: row.id, sequence: row.sequence } });
      await touchJobs(tx, { jobId });
      const view = toChangeOrder(row, quote.quote_number);
      const event = await recordEvent(tx, caller.organizationId, 'change_order.submitted', changeOrderEventData(view, caller));
      return { view, events: [event] };
    });
    await this.dispatch(events);
    return view;
  }

  /** D12: ADMIN with any method; a TECHNICIAN of the crew only with on_device_signature; SALES never. */
  async approve(caller: Caller, id: string, body: ApproveChangeOrderBody): Promise<ChangeOrder> {
    if (caller.role === 'TECHNICIAN' && body.approved_by.method !== 'on_device_signature') {
      throw forbidden('A technician records an approval only as the customer\'s signature on the device (method on_device_signature).');
    }
    const { view, events } = await inTenant(this.em, caller.organizationId, async (tx) => {
      const { row, quoteNumber } = await this.decidable(tx, caller, id);
      await approveChangeOrder(tx, id, { userId: caller.userId, approvedBy: body.approved_by, previousValueCents: await jobValueCents(tx, row.work_order_id) });
      const approved = (await changeOrderById(tx, id))!;
      await recordJobHistory(tx, { jobId: row.work_order_id, kind: 'change_order', userId: caller.userId, from: 'submitted', to: 'approved', detail: { change_order_id: id, approved_by: body.approved_by } });
      await touchJobs(tx, { jobId: row.work_order_id });
      const view = toChangeOrder(approved, quoteNumber);
      const quote = await jobQuote(tx, row.work_order_id);
      // Section 6.1 data; `invoice` says whether the payments leg runs (the quote is approved and the
      // price changes: an invoice for more, a credit note for less, docs/decisions.md): the worker
      // starts change-order-invoice-<id> from this event (infra/temporal/event-workflows.ts).
      const event = await recordEvent(tx, caller.organizationId, 'change_order.approved', {
        change_order_id: view.change_order_id,
        job_id: view.job_id,
        quote_ref: view.quote_ref,
        sequence: view.sequence,
        reason: view.reason,
        approved_by: body.approved_by,
        delta: view.delta,
        revised_contract_value: view.revised_contract_value,
        margin: view.margin,
        quote_id: quote?.quote_id ?? null,
        invoice: quote?.quote_status === 'APPROVED' && Number(approved.sell_cents) !== 0,
      });
      return { view, events: [event] };
    });
    await this.dispatch(events);
    return view;
  }

  async reject(caller: Caller, id: string, reason: string): Promise<ChangeOrder> {
    const { view, events } = await inTenant(this.em, caller.organizationId, async (tx) => {
      const { row, quoteNumber } = await this.decidable(tx, caller, id);
      await rejectChangeOrder(tx, id, { userId: caller.userId, reason });
      await recordJobHistory(tx, { jobId: row.work_order_id, kind: 'change_order', userId: caller.userId, from: 'submitted', to: 'rejected', detail: { change_order_id: id, reason } });
      await touchJobs(tx, { jobId: row.work_order_id });
      const view = toChangeOrder((await changeOrderById(tx, id))!, quoteNumber);
      const myName = await userFullName(tx, caller.userId);
      const event = await recordEvent(tx, caller.organizationId, 'change_order.rejected', {
        change_order_id: id,
        job_id: view.job_id,
        quote_ref: view.quote_ref,
        sequence: view.sequence,
        rejected_by: { name: myName!, role: caller.role },
        reason,
      });
      return { view, events: [event] };
    });
    await this.dispatch(events);
    return view;
  }

  /** A submitted change order of a job the caller may change, its job open; locked in that order (clock, job, change order). */
  private async decidable(tx: EntityManager, caller: Caller, id: string): Promise<{ row: ChangeOrderRow; quoteNumber: number | null }> {
    const found = await changeOrderById(tx, id);
    if (!found) throw notFound('No such change order in this workspace.');
    await lockJobClock(tx);
    const job = await lockJob(tx, found.work_order_id, visibilityOf(caller));
    if (!job) throw notFound('No such change order in this workspace.');
    if (TERMINAL_JOB_STATUSES.includes(job.job_status)) throw conflict(`The job is ${job.job_status}: its change orders are no longer decided.`);
    const row = (await changeOrderById(tx, id, true))!;
    if (row.status !== 'submitted') throw conflict(`The change order is already ${row.status}.`);
    const quote = await jobQuote(tx, row.work_order_id);
    return { row, quoteNumber: quote?.quote_number ?? null };
  }

  private async dispatch(events: EventEnvelope[]): Promise<void> {
    await this.events?.tryDispatchAll(events);
  }
}

function changeOrderEventData(view: ChangeOrder, caller: Caller): EventData<'change_order.submitted'> {
  return {
    change_order_id: view.change_order_id,
    job_id: view.job_id,
    quote_ref: view.quote_ref,
    sequence: view.sequence,
    reason: view.reason,
    raised_by_user_id: caller.userId,
    delta: view.delta,
    revised_contract_value: view.revised_contract_value,
    margin: view.margin,
  };
}

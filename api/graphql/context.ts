import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Caller } from '../http/request-context';
import type { CostMeter } from './cost';
import type { RateCardRepository } from '../../db/rate-cards/repository';
import type { EventEnvelope } from '../../domain/events/catalogue';
import type { V1QuoteService } from '../v1/quotes/v1-quote-service';
import type { TravelConfig } from '../../infra/routing/routing-day';
import type { QuoteService } from '../quotes/quote-service';
import { changeOrdersOfJobs, materialDrawsOfJobs, timeEntriesOfJobs, type ChangeOrderRow, type MaterialDrawRow, type TimeEntryRow } from '../../db/fsm/field-writes';
import { crewsByIds, type CrewRow } from '../../db/fsm/crews';
import { linesByQuoteIds, quotesByCustomerIds, quotesByIds, revisionsByQuoteIds, type QuoteLineRecord, type QuoteRecord, type QuoteRevisionRecord } from '../../db/quotes/quote-list';
import { customersByIds, type CustomerRow } from '../../db/quotes/customer-directory';
import { workOrdersByIds, workOrdersByQuoteIds, type WorkOrderRecord } from '../../db/work-orders/work-orders';
import { peopleByIds, type PersonRecord } from '../../db/users';

/** What every resolver of one request sees: who asks, the tenant's transaction, its loaders. */
export interface GraphQLContext {
  caller: Caller;
  /** The tenant's transaction the whole operation runs in (db/tenant-scope.ts). */
  tx: EntityManager;
  loaders: Loaders;
  cost: CostMeter;
  rateCards: RateCardRepository;
  log: Logger;
  /** D14's quote creation, run in this request's transaction. */
  v1Quotes: V1QuoteService;
  /** Where a route's ETA recomputation reads travel times (D23). */
  travel: TravelConfig;
  /** The quotes REST serves (send's writes run in this transaction, its email after the commit). */
  quotes: QuoteService;
  /** Work a mutation leaves for after the commit (an email), run in order; nothing runs for a rolled-back mutation. */
  afterCommit: (() => Promise<void>)[];
  /** Events a mutation recorded, dispatched after the transaction commits (the outbox relay covers a failure). */
  events: EventEnvelope[];
}

/** One loader of rows by id: the ids asked for in one tick, read in one statement. */
function byId<R extends { id: string }>(read: (ids: readonly string[]) => Promise<R[]>): DataLoader<string, R | null> {
  return new DataLoader(async (ids) => {
    const rows = new Map((await read(ids)).map((row) => [row.id, row]));
    return ids.map((id) => rows.get(id) ?? null);
  });
}

/** One loader of children per parent id, per page size (`first`): each size asked is one statement per tick. */
function childrenOf<R>(read: (parentIds: readonly string[], first: number) => Promise<R[]>, parentOf: (row: R) => string | null) {
  const bySize = new Map<number, DataLoader<string, R[]>>();
  return (first: number): DataLoader<string, R[]> => {
    let loader = bySize.get(first);
    if (!loader) {
      loader = new DataLoader(async (parentIds) => {
        const groups = new Map<string, R[]>();
        for (const row of first > 0 ? await read(parentIds, first) : []) {
          const parent = parentOf(row);
          if (parent === null) continue;
          groups.set(parent, [...(groups.get(parent) ?? []), row]);
        }
        return parentIds.map((id) => groups.get(id) ?? []);
      });
      bySize.set(first, loader);
    }
    return loader;
  };
}

/**
 * Per request (never shared: a cache across requests would cross transactions and tenants).
 * Nested lists are batched: the lines of fifty quotes are one statement, not fifty.
 */
export function createLoaders(tx: EntityManager) {
  return {
    quote: byId<QuoteRecord>((ids) => quotesByIds(tx, ids)),
    customer: byId<CustomerRow>((ids) => customersByIds(tx, ids)),
    workOrder: byId<WorkOrderRecord>((ids) => workOrdersByIds(tx, ids)),
    person: byId<PersonRecord>((ids) => peopleByIds(tx, ids)),
    revisionsOfQuote: childrenOf<QuoteRevisionRecord>((ids, first) => revisionsByQuoteIds(tx, ids, first), (row) => row.quote_id),
    linesOfQuote: childrenOf<QuoteLineRecord>((ids, first) => linesByQuoteIds(tx, ids, first), (row) => row.quote_id),
    quotesOfCustomer: childrenOf<QuoteRecord>((ids, first) => quotesByCustomerIds(tx, ids, first), (row) => row.customer_id),
    workOrdersOfQuote: childrenOf<WorkOrderRecord>((ids, first) => workOrdersByQuoteIds(tx, ids, first), (row) => row.quote_id),
    crew: byId<CrewRow>((ids) => crewsByIds(tx, ids)),
    changeOrdersOfJob: childrenOf<ChangeOrderRow>((ids, first) => changeOrdersOfJobs(tx, ids, first), (row) => row.work_order_id),
    timeEntriesOfJob: childrenOf<TimeEntryRow>((ids, first) => timeEntriesOfJobs(tx, ids, first), (row) => row.work_order_id),
    materialDrawsOfJob: childrenOf<MaterialDrawRow>((ids, first) => materialDrawsOfJobs(tx, ids, first), (row) => row.work_order_id),
  };
}
export type Loaders = ReturnType<typeof createLoaders>;

import { execute as executeDocument, getOperationAST, GraphQLError, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { GREAT_CIRCLE_TRAVEL, type TravelConfig } from '../../infra/routing/routing-day';
import type { Logger } from 'pino';
import { inTenant, readOnlyTransaction } from '../../db/tenant-scope';
import type { RateCardRepository } from '../../db/rate-cards/repository';
import type { Caller } from '../http/request-context';
import { createLoaders, type GraphQLContext } from './context';
import { MAX_QUERY_COST, requestedCost } from './cost';
import { clientError, codedError, REFUSAL_CODES } from './errors';
import type { PointsBucket, ThrottleStatus } from './throttle';
import type { EventDispatcher } from '../../infra/events/dispatcher';
import type { V1QuoteService } from '../v1/quotes/v1-quote-service';
import type { QuoteService } from '../quotes/quote-service';
import type { EventEnvelope } from '../../domain/events/catalogue';

/** What the HTTP layer knows of a request before it runs (graphql-http's `context`). */
export type RequestScope = {
  caller: Caller;
  log: Logger;
  /** The bucket as the operation left it, and the wait when it was throttled (for the HTTP headers). */
  throttle?: { status: ThrottleStatus; waitSeconds: number };
};

export interface ExecutionDeps {
  em: EntityManager;
  rateCards: RateCardRepository;
  bucket: PointsBucket;
  v1Quotes: V1QuoteService;
  /** Where a route's ETA recomputation reads travel times (D23); great-circle times without it. */
  travel?: TravelConfig;
  quotes: QuoteService;
  /** Starts the workflows of events a mutation recorded, after its commit (else the outbox relay does). */
  events?: EventDispatcher;
}

/** Jobber's and Shopify's `extensions.cost`. */
export interface CostExtension {
  requestedQueryCost: number;
  actualQueryCost: number;
  throttleStatus: ThrottleStatus;
}

/** Thrown out of a mutation's transaction so that nothing of a failed mutation is kept. */
class RolledBack extends Error {
  constructor(readonly result: ExecutionResult) {
    super('rolled back');
  }
}

/**
 * Runs one validated operation (graphql-http has parsed and validated it with our limits):
 * 1. its requested cost, from the document and variables, before anything runs (over 10,000
 *    points is refused; so are variables of the wrong type);
 * 2. the points drawn from the tenant's D15 bucket (THROTTLED, with the time to wait, when it
 *    holds too few);
 * 3. execution inside the tenant's transaction (db/tenant-scope.ts): read-only for a query, and
 *    rolled back for a mutation that answered an error, so a failed mutation writes nothing;
 * 4. what it did not use given back, and `extensions.cost` answered.
 */
export function createExecutor(deps: ExecutionDeps) {
  return async function execute(args: ExecutionArgs): Promise<ExecutionResult> {
    const scope = args.contextValue as RequestScope;
    const organizationId = scope.caller.organizationId;
    const variables = (args.variableValues ?? undefined) as Record<string, unknown> | undefined;
    const operationName = args.operationName ?? undefined;

    let requested: number;
    try {
      requested = requestedCost(args.schema, args.document, variables, operationName);
    } catch (error) {
      if (error instanceof GraphQLError) return { errors: [clientError(error)] };
      throw error;
    }
    if (requested > MAX_QUERY_COST) {
      const throttleStatus = await deps.bucket.status(organizationId);
      scope.throttle = { status: throttleStatus, waitSeconds: 0 };
      return {
        errors: [codedError(`The query costs ${requested} points; at most ${MAX_QUERY_COST} are allowed. Ask for fewer items (first) or fewer fields.`, REFUSAL_CODES.cost, { requestedQueryCost: requested, maximumQueryCost: MAX_QUERY_COST })],
        extensions: { cost: { requestedQueryCost: requested, actualQueryCost: 0, throttleStatus } satisfies CostExtension },
      };
    }

    const drawn = await deps.bucket.take(organizationId, requested);
    scope.throttle = { status: drawn.status, waitSeconds: drawn.waitSeconds };
    if (!drawn.taken) {
      return {
        errors: [
          codedError(`Throttled: the query costs ${requested} points and ${drawn.status.currentlyAvailable} are available; retry in ${drawn.waitSeconds} seconds.`, REFUSAL_CODES.throttled, {
            retryAfterSeconds: drawn.waitSeconds,
          }),
        ],
        extensions: { cost: { requestedQueryCost: requested, actualQueryCost: 0, throttleStatus: drawn.status } satisfies CostExtension },
      };
    }

    const isMutation = getOperationAST(args.document, operationName)?.operation === 'mutation';
    const meter = { actual: 0 };
    const recorded: EventEnvelope[] = [];
    const afterCommit: (() => Promise<void>)[] = [];
    let result: ExecutionResult;
    try {
      result = await inTenant(deps.em, organizationId, async (tx) => {
        // A query cannot write, whatever a resolver does.
        if (!isMutation) await readOnlyTransaction(tx);
        const context: GraphQLContext = { caller: scope.caller, tx, loaders: createLoaders(tx), cost: meter, rateCards: deps.rateCards, v1Quotes: deps.v1Quotes, travel: deps.travel ?? GREAT_CIRCLE_TRAVEL, quotes: deps.quotes, log: scope.log, events: recorded, afterCommit };
        const executed = await executeDocument({ ...args, contextValue: context });
        if (isMutation && executed.errors?.length) throw new RolledBack(executed);
        return executed;
      });
      // Committed: deliver what the mutation recorded at once (D11's same events as the REST move).
      await deps.events?.tryDispatchAll(recorded);
      // Then what must not happen for a mutation that rolled back (a quote's link emailed); each catches its own trouble.
      for (const task of afterCommit) await task();
    } catch (error) {
      if (!(error instanceof RolledBack)) throw error;
      result = error.result;
    }

    const actual = Math.min(meter.actual, requested);
    const throttleStatus = await deps.bucket.refund(organizationId, requested - actual);
    scope.throttle = { status: throttleStatus, waitSeconds: 0 };
    return {
      ...result,
      ...(result.errors ? { errors: result.errors.map((error) => clientError(error, scope.log)) } : {}),
      extensions: { ...result.extensions, cost: { requestedQueryCost: requested, actualQueryCost: actual, throttleStatus } satisfies CostExtension },
    };
  };
}

import type { GraphQLObjectType } from 'graphql';
import type { WorkOrderRecord } from '../../../db/work-orders/work-orders';
import type { Context } from './common';

/**
 * The one type named across features both ways: a quote lists its work orders and a work order
 * names its quote. work-orders.ts binds it when loaded (schema.ts loads every feature before it
 * builds the schema); quotes.ts reads it only inside a field thunk, so no module imports the other
 * in a cycle.
 */
export const lateTypes = {} as { WorkOrder: GraphQLObjectType<WorkOrderRecord, Context> };

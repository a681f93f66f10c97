import { GraphQLBoolean, GraphQLID, GraphQLObjectType, GraphQLString, type GraphQLFieldConfigMap } from 'graphql';
import { currentRevision, revisionContent } from '../../../db/pricebook/pricebook';
import type { PricebookContent, PricebookSku } from '../../../domain/pricebook/content';
import { DateTime, Decimal, listOf, nonNull, requireOffice, sized, sizeArg, type Context } from './common';

/**
 * D21 in GraphQL: the price book's current revision, the same read as `GET /v1/pricebooks/{id}`
 * (db/pricebook/pricebook.ts): current by effective_from, so a scheduled revision shows from its instant.
 */
interface PricebookValue extends PricebookContent {
  id: string;
  revision: string;
  effectiveFrom: string;
}

const PricebookSkuType = new GraphQLObjectType<PricebookSku, Context>({
  name: 'PricebookSku',
  fields: {
    code: { type: nonNull(GraphQLString) },
    component: { type: nonNull(GraphQLString), description: 'fabric, hardware, motor or trim' },
    description: { type: nonNull(GraphQLString) },
    unit: { type: nonNull(GraphQLString), description: 'sq_ft, each or linear_ft' },
    unitCostCents: { type: nonNull(Decimal), description: 'Per-unit cost in cents, exact (fractions of a cent allowed)', resolve: (s) => s.unit_cost_cents },
    active: { type: nonNull(GraphQLBoolean) },
  },
});

const SKU_LIST = { defaultSize: 50, maxSize: 500 };

const PricebookType = new GraphQLObjectType<PricebookValue, Context>({
  name: 'Pricebook',
  description: 'The tenant’s price book at its current revision.',
  fields: {
    id: { type: nonNull(GraphQLID), description: 'The `pricebookId` a quote names' },
    revision: { type: nonNull(DateTime), description: 'The revision that prices a quote made now' },
    effectiveFrom: { type: nonNull(DateTime) },
    marginFloor: { type: nonNull(Decimal), resolve: (p) => p.settings.margin_floor },
    fabricWasteFactor: { type: nonNull(Decimal), resolve: (p) => p.settings.fabric_waste_factor },
    skus: {
      type: listOf(PricebookSkuType),
      description: 'Its SKUs by code, inactive ones included',
      ...sized(SKU_LIST.defaultSize, SKU_LIST.maxSize),
      resolve: (p, args: { first?: number | null }) => p.skus.slice(0, sizeArg(args, SKU_LIST.defaultSize, SKU_LIST.maxSize, 'skus')),
    },
  },
});

export const pricebookQueries: GraphQLFieldConfigMap<unknown, Context> = {
  pricebook: {
    type: PricebookType,
    description: 'The price book at its current revision, or null before the workspace has one (ADMIN, SALES).',
    resolve: async (_root, _args, ctx): Promise<PricebookValue | null> => {
      requireOffice(ctx);
      const head = await currentRevision(ctx.tx);
      if (!head) return null;
      return { id: ctx.caller.organizationId, revision: head.revision, effectiveFrom: head.effectiveFrom, ...(await revisionContent(ctx.tx, head)) };
    },
  },
};

import { GraphQLBoolean, GraphQLFloat, GraphQLInputObjectType, GraphQLInt, GraphQLObjectType, GraphQLString, type GraphQLFieldConfigMap } from 'graphql';
import type { PricedComponent, PricedLineItem, PricedQuote } from '../../../domain/pricing/reference-engine';
import { calculate } from '../calculate';
import { costs } from '../cost';
import { Cents, Decimal, listOf, nonNull, requireOffice, type Context } from './common';

/** Pricing: calculate, from the same engine and rate card as POST /api/v1/quotes/calculate; nothing is stored. */

const PricedComponentType = new GraphQLObjectType<PricedComponent, Context>({
  name: 'PricedComponent',
  fields: {
    component: { type: nonNull(GraphQLString) },
    skuCode: { type: GraphQLString, resolve: (c) => c.sku_code },
    description: { type: nonNull(GraphQLString) },
    quantity: { type: nonNull(Decimal) },
    unit: { type: nonNull(GraphQLString) },
    unitCostCents: { type: nonNull(Decimal), description: 'May carry fractions of a cent.', resolve: (c) => c.unit_cost_cents },
    extendedCostCents: { type: nonNull(Cents), resolve: (c) => c.extended_cost_cents },
  },
});

const PricedLine = new GraphQLObjectType<PricedLineItem, Context>({
  name: 'PricedLine',
  fields: {
    reference: { type: GraphQLString },
    widthInches: { type: nonNull(GraphQLFloat), resolve: (l) => l.width_inches },
    dropInches: { type: nonNull(GraphQLFloat), resolve: (l) => l.drop_inches },
    quantity: { type: nonNull(GraphQLInt) },
    openingSquareFeet: { type: nonNull(Decimal), resolve: (l) => l.opening_square_feet },
    fabricSquareFeetWithWaste: { type: nonNull(Decimal), resolve: (l) => l.fabric_square_feet_with_waste },
    labourHours: { type: nonNull(Decimal), resolve: (l) => l.labour_hours },
    tubeLengthInches: { type: nonNull(Decimal), resolve: (l) => l.cut_list.tube_length_inches },
    hembarLengthInches: { type: nonNull(Decimal), resolve: (l) => l.cut_list.hembar_length_inches },
    fabricWidthInches: { type: nonNull(Decimal), resolve: (l) => l.cut_list.fabric_width_inches },
    fabricDropInches: { type: nonNull(Decimal), resolve: (l) => l.cut_list.fabric_drop_inches },
    components: { type: listOf(PricedComponentType), extensions: costs.free },
    costCents: { type: nonNull(Cents), resolve: (l) => l.cost_cents },
    priceCents: { type: nonNull(Cents), resolve: (l) => l.price_cents },
  },
});

const Calculation = new GraphQLObjectType<PricedQuote, Context>({
  name: 'Calculation',
  description: 'What POST /api/v1/quotes/calculate answers, from the same engine and rate card; nothing is stored.',
  fields: {
    currency: { type: nonNull(GraphQLString) },
    laborTierCode: { type: nonNull(GraphQLString), resolve: (p) => p.labor_tier.code },
    laborTierName: { type: nonNull(GraphQLString), resolve: (p) => p.labor_tier.name },
    marginFloor: { type: nonNull(Decimal), resolve: (p) => p.margin_floor },
    appliedMargin: { type: nonNull(Decimal), resolve: (p) => p.applied_margin },
    floorOverridden: { type: nonNull(GraphQLBoolean), resolve: (p) => p.floor_overridden },
    lineItems: { type: listOf(PricedLine), extensions: costs.free, resolve: (p) => p.line_items },
    costCents: { type: nonNull(Cents), resolve: (p) => p.totals.cost_cents },
    amountCents: { type: nonNull(Cents), resolve: (p) => p.totals.amount_cents },
    profitCents: { type: nonNull(Cents), resolve: (p) => p.totals.profit_cents },
    marginPercent: { type: nonNull(Decimal), resolve: (p) => p.totals.margin_percent },
  },
});

const LineItemInput = new GraphQLInputObjectType({
  name: 'LineItemInput',
  fields: {
    reference: { type: GraphQLString },
    widthInches: { type: nonNull(GraphQLFloat) },
    dropInches: { type: nonNull(GraphQLFloat) },
    quantity: { type: nonNull(GraphQLInt) },
    fabricSkuCode: { type: nonNull(GraphQLString) },
    hardwareSkuCode: { type: nonNull(GraphQLString) },
    motorSkuCode: { type: GraphQLString },
    trimSkuCode: { type: GraphQLString },
  },
});

export const CalculateInput = new GraphQLInputObjectType({
  name: 'CalculateInput',
  description: 'The body of POST /api/v1/quotes/calculate without `persist` and `customer` (calculate stores nothing); the same limits apply.',
  fields: {
    laborTierCode: { type: nonNull(GraphQLString) },
    lineItems: { type: listOf(LineItemInput) },
    targetMargin: { type: GraphQLFloat, description: 'A fraction in [0, 1); omitted prices at the floor.' },
    marginOverride: { type: new GraphQLInputObjectType({ name: 'MarginOverrideInput', fields: { reason: { type: nonNull(GraphQLString) } } }) },
  },
});

export const pricingMutations: GraphQLFieldConfigMap<unknown, Context> = {
  calculate: {
    type: nonNull(Calculation),
    description: "Price a configuration from the workspace's current rate card (ADMIN, SALES; below the floor needs an ADMIN and a reason). Stores nothing.",
    args: { input: { type: nonNull(CalculateInput) } },
    extensions: costs.mutation(),
    resolve: (_root, args: { input: Record<string, unknown> }, ctx) => {
      requireOffice(ctx);
      return calculate(ctx, args.input);
    },
  },
};

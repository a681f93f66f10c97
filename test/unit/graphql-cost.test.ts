import { describe, expect, it } from '@jest/globals';
import { parse, specifiedRules, validate, type GraphQLError } from 'graphql';
import { schema } from '../../api/graphql/schema';
import { MAX_QUERY_COST, requestedCost } from '../../api/graphql/cost';
import { LIMITS, validationRules } from '../../api/graphql/limits';

// D17: the worked examples of docs/graphql.md ("Cost: worked examples"), each to the point.
const cost = (query: string, variables?: Record<string, unknown>) => requestedCost(schema, parse(query), variables, undefined);

describe('requested cost (docs/graphql.md worked examples)', () => {
  it('1. a connection of five with scalars: 2 + 5 × 1 = 7', () => {
    expect(cost('{ workOrders(first: 5) { nodes { id status } pageInfo { hasNextPage endCursor } } }')).toBe(7);
  });

  it('2. fifty quotes with customer, ten lines and two work orders with their technician: 2 + 50 × 16 = 802', () => {
    const query = `{ quotes(first: 50) { edges { cursor node { id number customer { name } lines(first: 10) { priceCents }
      workOrders(first: 2) { id assignedTechnician { name } } } } pageInfo { endCursor } } }`;
    expect(cost(query)).toBe(802);
  });

  it('3. default sizes: twenty quotes with their fifty lines: 2 + 20 × (1 + 50) = 1,022', () => {
    expect(cost('{ quotes { nodes { id lines { position } } } }')).toBe(1022);
  });

  it('4. sizes from variables: 2 + 30 × (1 + 1) = 62', () => {
    expect(cost('query Q($n: Int) { workOrders(first: $n) { nodes { id quote { id } } } }', { n: 30 })).toBe(62);
  });

  it('5. the same field twice under aliases costs twice: 7 + 7 = 14', () => {
    expect(cost('{ a: workOrders(first: 5) { nodes { id } } b: workOrders(first: 5) { nodes { id } } }')).toBe(14);
  });

  it('6. fragments cost what they select where they are spread: 2 + 10 × (1 + 1) = 22', () => {
    expect(cost('{ workOrders(first: 10) { nodes { ...W } } } fragment W on WorkOrder { id assignedTechnician { name } }')).toBe(22);
  });

  it('7. calculate is a mutation: 10, its priced lines free', () => {
    const query = `mutation { calculate(input: { laborTierCode: "STANDARD", lineItems: [{ widthInches: 48, dropInches: 60, quantity: 1, fabricSkuCode: "F", hardwareSkuCode: "H" }] })
      { amountCents lineItems { priceCents components { skuCode } } } }`;
    expect(cost(query)).toBe(10);
  });

  it('8. a hundred customers with fifty quotes of two hundred lines: 2 + 100 × (1 + 50 × (1 + 200)) = 1,005,102, over the maximum', () => {
    const requested = cost('{ customers(first: 100) { nodes { quotes(first: 50) { lines(first: 200) { costCents } } } } }');
    expect(requested).toBe(1_005_102);
    expect(requested).toBeGreaterThan(MAX_QUERY_COST);
  });

  it('9. @skip and @include are honoured: 2 + 5 × 1 = 7', () => {
    expect(cost('query Q($no: Boolean!) { workOrders(first: 5) { nodes { id quote @include(if: $no) { id } } } }', { no: false })).toBe(7);
  });

  it('10. fifty jobs with their change orders and time entries (default sizes 10 and 20): 2 + 50 × (1 + 10 + 20) = 1,552', () => {
    expect(cost('{ jobs(first: 50) { nodes { id changeOrders { sellCents } timeEntries { hours } } } }')).toBe(1552);
  });

  it('11. moveJob and createQuote cost one /v1/ request (50 points) plus their selection: 50 + 1 = 51', () => {
    expect(cost('mutation { moveJob(id: "x", status: DISPATCHED) { id status crew { name } } }')).toBe(51);
    expect(cost('mutation M($i: CreateQuoteInput!) { createQuote(input: $i) { replayed quote { id } } }', {
      i: { customerId: 'c', currency: 'CAD', taxRegion: 'CA-ON', pricebookId: 'p', lines: [{ sku: 'S', quantity: 1, configuration: { finishedWidthIn: 1, finishedHeightIn: 1, controlSide: 'left' } }] },
    })).toBe(51);
  });

  it('introspection adds no points (the limits bound it)', () => {
    expect(cost('{ __schema { types { name fields { name } } } }')).toBe(0);
  });

  it('a size outside its range is refused before anything runs', () => {
    expect(() => cost('{ workOrders(first: 101) { nodes { id } } }')).toThrow(/first must be an integer from 0 to 100/);
    expect(() => cost('{ workOrders(first: -1) { nodes { id } } }')).toThrow(/from 0 to 100/);
    expect(() => cost('{ quotes { nodes { lines(first: 201) { position } } } }')).toThrow(/from 0 to 200/);
  });

  it('variables of the wrong type are refused by the costing itself', () => {
    expect(() => cost('query Q($n: Int) { workOrders(first: $n) { nodes { id } } }', { n: 'many' })).toThrow(/Int cannot represent/);
  });
});

describe('limits before execution', () => {
  const refusals = (query: string) => validate(schema, parse(query), validationRules(specifiedRules)) as GraphQLError[];
  const codes = (query: string) => refusals(query).map((error) => error.extensions.code ?? 'GRAPHQL_VALIDATION_FAILED');
  /** customers > nodes > quotes > customer > quotes > ... > id: `depth` fields deep. */
  const nest = (depth: number) => {
    const chain = Array.from({ length: depth - 3 }, (_, i) => (i % 2 === 0 ? 'quotes' : 'customer'));
    return `{ customers { nodes { ${chain.map((field) => `${field} { `).join('')}id${' }'.repeat(chain.length)} } } }`;
  };

  it(`depth ${LIMITS.maxDepth} passes, ${LIMITS.maxDepth + 1} is MAX_DEPTH_EXCEEDED`, () => {
    expect(codes(nest(LIMITS.maxDepth))).toEqual([]);
    expect(codes(nest(LIMITS.maxDepth + 1))).toEqual(['MAX_DEPTH_EXCEEDED']);
  });

  it(`${LIMITS.maxAliases} aliases pass, one more is MAX_ALIASES_EXCEEDED`, () => {
    const aliased = (n: number) => `{ workOrders(first: 1) { nodes { ${Array.from({ length: n }, (_, i) => `a${i}: id`).join(' ')} } } }`;
    expect(codes(aliased(LIMITS.maxAliases))).toEqual([]);
    expect(codes(aliased(LIMITS.maxAliases + 1))).toEqual(['MAX_ALIASES_EXCEEDED']);
  });

  it(`${LIMITS.maxRootFields} root fields pass, one more (even through a fragment) is MAX_ROOT_FIELDS_EXCEEDED`, () => {
    const roots = (n: number) => Array.from({ length: n }, (_, i) => `w${i}: workOrder(id: "x") { id }`);
    expect(codes(`{ ${roots(LIMITS.maxRootFields).join(' ')} }`)).toEqual(codes('{ workOrder(id: "x") { id } }'));
    expect(codes(`{ ${roots(LIMITS.maxRootFields).join(' ')} ...More } fragment More on Query { workOrders { nodes { id } } }`)).toContain('MAX_ROOT_FIELDS_EXCEEDED');
  });

  it('nested introspection is refused by graphql-js (MaxIntrospectionDepthRule)', () => {
    const abuse = '{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }';
    expect(refusals(abuse).map((error) => error.message)).toEqual(['Maximum introspection depth exceeded']);
  });

  it('unknown fields are validation errors', () => {
    expect(refusals('{ workOrders { nodes { secret } } }')[0]!.message).toMatch(/Cannot query field "secret"/);
  });
});

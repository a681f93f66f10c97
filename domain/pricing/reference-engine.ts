/**
 * D2: the reference pricing engine, in decimal.js. A validated calculate request plus one rate-card revision in, the
 * CalculationResult of spec 2.3 (without its persistence fields) out. No I/O, no clock, no
 * randomness: the same request on the same rate card always prices the same, which is what lets a
 * persisted quote be re-checked against the revision it records.
 *
 * Every formula, rounding point and decimal scale used here is written down in docs/pricing.md;
 * change the two together.
 */
import Decimal from 'decimal.js';
import type { z } from 'zod';
import type { CalculationLineItem, CalculationRequest } from './request';
import type { CalculationResult } from './calculation-schemas';
import type { FrozenCalculation } from '../quotes/frozen-calculation';
import type { RateCardLabourTier, RateCardSku, RateCardSnapshot, SkuComponent, SkuUnit } from './rate-card';
import {
  MarginBelowFloorError,
  MarginOverrideNotAuthorisedError,
  SkuComponentMismatchError,
  UnknownLabourTierError,
  UnknownSkuError,
  UnpriceableInputError,
} from './errors';

// ---- Result shape: spec 2.3 CalculationResult minus its persistence fields, derived from the zod
// schema of the response (type only), so the engine cannot answer a shape the API does not document.

export type PricedQuote = Omit<z.output<typeof CalculationResult>, 'quote_id' | 'quote_number' | 'status' | 'persisted'>;
export type PricedLineItem = PricedQuote['line_items'][number];
export type PricedComponent = PricedLineItem['components'][number];

/** What approval freezes (D3) is read back by the invoicing legs as a FrozenCalculation. */
type Assert<T extends true> = T;
export type FrozenShapeAgrees = Assert<PricedQuote extends FrozenCalculation ? true : false>;

export interface PriceQuoteInput {
  request: CalculationRequest;
  rateCard: RateCardSnapshot;
  /** Whether the caller may override the margin floor (an ADMIN token, spec 4.3 rule 3). */
  overrideAuthorised: boolean;
}

// ---- Decimal arithmetic (D2) ----

// A private constructor so no other module's Decimal settings can change our results. Sums and
// products of the inputs are exact at 40 significant digits (a JSON double carries at most 17); the
// non-terminating quotients (/ 144, / 12) are then far too close to exact for the 40-digit rounding
// to move a value across a 4-place or whole-cent tie. The mode is that of every half-up rounding point.
export const Dec = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });

/** Scale of every computed decimal string: inches, square feet, hours, quantities and margin_percent. */
const SCALE = 4;
const INCHES_PER_FOOT = new Dec(12);
const SQUARE_INCHES_PER_SQUARE_FOOT = new Dec(144);
const ONE = new Dec(1);
const ZERO = new Dec(0);

const round4 = (d: Decimal): Decimal => d.toDecimalPlaces(SCALE, Decimal.ROUND_HALF_UP);
const fixed4 = (d: Decimal): string => d.toFixed(SCALE, Decimal.ROUND_HALF_UP);
/** An echoed rate-card or request value: exact, plain notation (never an exponent). */
export const plain = (d: Decimal): string => d.toFixed();

/** Whole cents, half-up: the rounding point of every component's extended cost. */
function centsHalfUp(amount: Decimal, field: string): number {
  return safeCents(amount.toDecimalPlaces(0, Decimal.ROUND_HALF_UP), field);
}

/** A whole number of cents as a JS number, refused beyond 2^53 - 1 where numbers stop being exact. */
function safeCents(cents: Decimal | number, field: string): number {
  const value = typeof cents === 'number' ? cents : cents.toNumber();
  if (!Number.isSafeInteger(value)) throw new UnpriceableInputError(field, 'the amount is too large to price exactly');
  return value;
}

/**
 * 1 - margin as an exact fraction numerator / 10^scale. The price division is done in BigInt so
 * the ceiling is exact for any margin a JSON number can express (even 5e-324), not just to 40 digits.
 */
export interface Divisor {
  numerator: bigint;
  scale: bigint;
}

export function divisorFor(margin: Decimal): Divisor {
  const [whole = '0', fraction = ''] = plain(margin).split('.');
  const scale = 10n ** BigInt(fraction.length);
  const numerator = scale - BigInt(whole + fraction);
  // The engine checks request margins itself; a floor of 1 or more is a broken rate card (a 500).
  if (numerator <= 0n || margin.lt(0)) throw new Error(`margin ${plain(margin)} is outside [0, 1)`);
  return { numerator, scale };
}

/** price = cost / (1 - margin), rounded up to a whole cent so no line sells below the applied margin. */
export function priceFromCost(costCents: number, divisor: Divisor, field: string): number {
  const scaled = BigInt(costCents) * divisor.scale;
  const price = (scaled + divisor.numerator - 1n) / divisor.numerator;
  if (price > BigInt(Number.MAX_SAFE_INTEGER)) throw new UnpriceableInputError(field, 'the amount is too large to price exactly');
  return Number(price);
}

// ---- Engine ----

/** Rate-card values parsed once per call, so a line costs only Map lookups and arithmetic. */
interface Context {
  rateCard: RateCardSnapshot;
  tier: RateCardLabourTier;
  tierMultiplier: Decimal;
  tierRate: Decimal;
  wasteMultiplier: Decimal; // 1 + fabric waste factor
  baseHours: Decimal;
  hoursPerSquareFoot: Decimal;
  motorisationHours: Decimal;
  tubeDeduction: Decimal;
  hembarDeduction: Decimal;
  fabricWidthDeduction: Decimal;
  fabricDropAllowance: Decimal;
  divisor: Divisor;
  labourDescription: string;
  unitCosts: Map<string, { value: Decimal; text: string }>;
}

/**
 * The reference engine: every value a decimal.js Decimal, written to read like docs/pricing.md.
 * Production prices with the scaled-integer engine (engine.ts), which the property test
 * (test/unit/fast-engine-equivalence.test.ts) proves identical to this one field by field, and
 * which hands every request it cannot price exactly, and every refusal, to this function.
 */
export function priceQuoteReference(input: PriceQuoteInput): PricedQuote {
  const { request, rateCard, overrideAuthorised } = input;

  const tier = rateCard.labourTiers.get(request.laborTierCode);
  if (!tier) throw new UnknownLabourTierError(request.laborTierCode);

  const floor = new Dec(rateCard.marginFloor);
  const { applied, overridden } = resolveMargin(request, floor, overrideAuthorised);

  const fabricWasteFactor = new Dec(rateCard.fabricWasteFactor);
  const ctx: Context = {
    rateCard,
    tier,
    tierMultiplier: new Dec(tier.multiplier),
    tierRate: new Dec(tier.hourlyRateCents),
    wasteMultiplier: ONE.plus(fabricWasteFactor),
    baseHours: new Dec(rateCard.labourBaseHoursPerUnit),
    hoursPerSquareFoot: new Dec(rateCard.labourHoursPerSquareFoot),
    motorisationHours: new Dec(rateCard.labourMotorisationHours),
    tubeDeduction: new Dec(rateCard.tubeDeductionInches),
    hembarDeduction: new Dec(rateCard.hembarDeductionInches),
    fabricWidthDeduction: new Dec(rateCard.fabricWidthDeductionInches),
    fabricDropAllowance: new Dec(rateCard.fabricDropAllowanceInches),
    divisor: divisorFor(applied),
    labourDescription: `Installation labour, ${tier.name}`,
    unitCosts: new Map(),
  };

  const lineItems = request.lineItems.map((line, index) => priceLine(ctx, line, index));

  let costCents = 0;
  let amountCents = 0;
  for (const line of lineItems) {
    costCents += line.cost_cents;
    amountCents += line.price_cents;
  }
  safeCents(costCents, 'lineItems');
  safeCents(amountCents, 'lineItems');
  const profitCents = amountCents - costCents;
  // A quote whose every cost is zero has no margin to speak of; 0 rather than a division by zero.
  const marginPercent = amountCents === 0 ? ZERO : new Dec(profitCents).div(amountCents);

  const appliedText = plain(applied);
  return {
    currency: 'CAD',
    labor_tier: {
      code: tier.code,
      name: tier.name,
      hourly_rate_cents: tier.hourlyRateCents,
      multiplier: plain(ctx.tierMultiplier),
    },
    margin_floor: plain(floor),
    applied_margin: appliedText,
    floor_overridden: overridden,
    target_margin: appliedText,
    line_items: lineItems,
    totals: {
      cost_cents: costCents,
      amount_cents: amountCents,
      profit_cents: profitCents,
      margin_percent: fixed4(marginPercent),
    },
    assumptions: {
      fabric_waste_factor: plain(fabricWasteFactor),
      labour_base_hours_per_unit: plain(ctx.baseHours),
      labour_hours_per_square_foot: plain(ctx.hoursPerSquareFoot),
      labour_motorisation_hours: plain(ctx.motorisationHours),
    },
  };
}

/** Spec 4.3 rules 1-3 and D2: omitted means the floor; below the floor needs an authorised override. */
export function resolveMargin(
  request: CalculationRequest,
  floor: Decimal,
  overrideAuthorised: boolean,
): { applied: Decimal; overridden: boolean } {
  const target = request.targetMargin;
  if (target === undefined) return { applied: floor, overridden: false };
  if (!Number.isFinite(target) || target < 0 || target >= 1) {
    throw new UnpriceableInputError('targetMargin', `${target} is not a fraction in [0, 1)`);
  }
  // Decimal reads a JSON number through its shortest round-trip text, so 0.35 is exactly 0.35.
  // (-0 is a valid JSON-derived number; it is the margin 0.)
  const applied = new Dec(target === 0 ? 0 : target);
  if (applied.gte(floor)) return { applied, overridden: false };
  if (!request.marginOverride) throw new MarginBelowFloorError(plain(applied), plain(floor));
  if (!overrideAuthorised) throw new MarginOverrideNotAuthorisedError(plain(applied), plain(floor));
  return { applied, overridden: true };
}

function resolveSku(ctx: Context, code: string, expected: SkuComponent, field: string): RateCardSku {
  const sku = ctx.rateCard.skus.get(code);
  if (!sku) throw new UnknownSkuError(code, field);
  if (sku.component !== expected) throw new SkuComponentMismatchError(code, field, expected, sku.component);
  return sku;
}

function unitCostOf(ctx: Context, sku: RateCardSku): { value: Decimal; text: string } {
  let cost = ctx.unitCosts.get(sku.code);
  if (!cost) {
    const value = new Dec(sku.unitCostCents);
    cost = { value, text: plain(value) };
    ctx.unitCosts.set(sku.code, cost);
  }
  return cost;
}

/** What a SKU's quantity can be measured from, per shade (docs/pricing.md step 5). */
interface UnitMeasures {
  wasteMultiplier: Decimal;
  width: Decimal;
  tube: Decimal;
  fabricDrop: Decimal;
  fabricWithWaste: Decimal;
  opening: Decimal;
}

function positiveCut(length: Decimal, field: string, what: string): Decimal {
  if (length.lte(0)) {
    throw new UnpriceableInputError(field, `the ${what} would be ${plain(length)} inches after the rate card's deduction`);
  }
  return length;
}

function priceLine(ctx: Context, line: CalculationLineItem, index: number): PricedLineItem {
  const path = `lineItems.${index}`;
  const fabricSku = resolveSku(ctx, line.fabricSkuCode, 'fabric', `${path}.fabricSkuCode`);
  const hardwareSku = resolveSku(ctx, line.hardwareSkuCode, 'hardware', `${path}.hardwareSkuCode`);
  const motorSku = line.motorSkuCode === undefined ? undefined : resolveSku(ctx, line.motorSkuCode, 'motor', `${path}.motorSkuCode`);
  const trimSku = line.trimSkuCode === undefined ? undefined : resolveSku(ctx, line.trimSkuCode, 'trim', `${path}.trimSkuCode`);

  const width = new Dec(line.widthInches);
  const drop = new Dec(line.dropInches);
  const quantity = new Dec(line.quantity);

  // Step 1: cut list per unit.
  const widthField = `${path}.widthInches`;
  const tube = positiveCut(round4(width.minus(ctx.tubeDeduction)), widthField, 'tube length');
  const hembar = positiveCut(round4(width.minus(ctx.hembarDeduction)), widthField, 'hembar length');
  const fabricWidth = positiveCut(round4(width.minus(ctx.fabricWidthDeduction)), widthField, 'fabric width');
  const fabricDrop = positiveCut(round4(drop.plus(ctx.fabricDropAllowance)), `${path}.dropInches`, 'fabric drop');
  // Steps 2-3: areas per unit.
  const fabricSquareFeet = round4(fabricWidth.times(fabricDrop).div(SQUARE_INCHES_PER_SQUARE_FOOT));
  const fabricWithWaste = round4(fabricSquareFeet.times(ctx.wasteMultiplier));
  const opening = round4(width.times(drop).div(SQUARE_INCHES_PER_SQUARE_FOOT));
  const measures: UnitMeasures = { wasteMultiplier: ctx.wasteMultiplier, width, tube, fabricDrop, fabricWithWaste, opening };

  // Step 4: labour hours per unit; the motorisation hours only when a motor is fitted.
  let rawHours = ctx.baseHours.plus(ctx.hoursPerSquareFoot.times(opening));
  if (motorSku) rawHours = rawHours.plus(ctx.motorisationHours);
  const labourHoursPerUnit = round4(rawHours.times(ctx.tierMultiplier));
  const labourHours = labourHoursPerUnit.times(quantity);

  // Steps 5-6: components, each extended to whole cents.
  const components: PricedComponent[] = [skuComponent(ctx, fabricSku, measures, quantity, path)];
  components.push(skuComponent(ctx, hardwareSku, measures, quantity, path));
  if (motorSku) components.push(skuComponent(ctx, motorSku, measures, quantity, path));
  if (trimSku) components.push(skuComponent(ctx, trimSku, measures, quantity, path));
  components.push({
    component: 'labour',
    sku_code: null,
    description: ctx.labourDescription,
    quantity: fixed4(labourHours),
    unit: 'hour',
    unit_cost_cents: plain(ctx.tierRate),
    extended_cost_cents: centsHalfUp(labourHours.times(ctx.tierRate), path),
  });

  // Step 7: the line's cost and its price at the applied margin.
  let costCents = 0;
  for (const component of components) costCents += component.extended_cost_cents;
  safeCents(costCents, path);

  return {
    reference: line.reference ?? null,
    width_inches: line.widthInches,
    drop_inches: line.dropInches,
    quantity: line.quantity,
    opening_square_feet: fixed4(opening.times(quantity)),
    fabric_square_feet_with_waste: fixed4(fabricWithWaste.times(quantity)),
    labour_hours: fixed4(labourHours),
    cut_list: {
      tube_length_inches: fixed4(tube),
      hembar_length_inches: fixed4(hembar),
      fabric_width_inches: fixed4(fabricWidth),
      fabric_drop_inches: fixed4(fabricDrop),
      fabric_square_feet: fixed4(fabricSquareFeet),
    },
    components,
    cost_cents: costCents,
    price_cents: priceFromCost(costCents, ctx.divisor, path),
  };
}

/**
 * How a SKU's unit becomes a quantity per shade (docs/pricing.md step 5). 'each' is one per shade.
 * 'sq_ft' is the cut fabric with waste for fabric, the opening for anything else. 'linear_ft'
 * follows what is actually cut: the fabric's drop (with waste) off the roll, the tube for hardware
 * and motors, the full ordered width for trim (a cassette or fascia covers the brackets too).
 */
function quantityPerUnit(component: SkuComponent, unit: SkuUnit, m: UnitMeasures): Decimal {
  switch (unit) {
    case 'each':
      return ONE;
    case 'sq_ft':
      return component === 'fabric' ? m.fabricWithWaste : m.opening;
    case 'linear_ft': {
      if (component === 'fabric') return round4(m.fabricDrop.times(m.wasteMultiplier).div(INCHES_PER_FOOT));
      const inches = component === 'trim' ? m.width : m.tube;
      return round4(inches.div(INCHES_PER_FOOT));
    }
  }
}

function skuComponent(ctx: Context, sku: RateCardSku, m: UnitMeasures, quantity: Decimal, path: string): PricedComponent {
  const unitCost = unitCostOf(ctx, sku);
  const lineQuantity = quantityPerUnit(sku.component, sku.unit, m).times(quantity);
  return {
    component: sku.component,
    sku_code: sku.code,
    description: sku.description,
    quantity: fixed4(lineQuantity),
    unit: sku.unit,
    unit_cost_cents: unitCost.text,
    extended_cost_cents: centsHalfUp(lineQuantity.times(unitCost.value), `${path}.${sku.component}SkuCode`),
  };
}

/**
 * D12: a cost in cents priced at `margin` (a decimal string in [0, 1)) the way every line is
 * (price = cost / (1 - margin), up to a whole cent). A negative cost (work no longer needed) is a
 * credit priced the same way on its magnitude, so a credit and its charge cancel exactly.
 */
export function priceFromCostAtMargin(costCents: number, margin: string): number {
  const divisor = divisorFor(new Dec(margin));
  if (costCents < 0) return -priceFromCost(-costCents, divisor, 'labour_hours');
  return priceFromCost(costCents, divisor, 'labour_hours');
}

/** D12: whole cents of `hours` at `hourlyRateCents`, half-up (the rounding of every labour component). */
export function labourCostCents(hours: string, hourlyRateCents: number): number {
  const cost = new Dec(hours).times(hourlyRateCents).toDecimalPlaces(0, Decimal.ROUND_HALF_UP);
  return safeCents(cost, 'labour_hours');
}

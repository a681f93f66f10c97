/**
 * D2: the pricing engine every caller uses. Same contract and same answers as the decimal.js
 * reference (reference-engine.ts), computed in scaled integers: inches, square feet, hours and
 * quantities as integer ten-thousandths, rate-card values as integers over their own power of
 * ten, compiled once per revision (compiled-rate-card.ts). Each rounding point R1-R9 of
 * docs/pricing.md is one exact integer division, and nothing between them allocates but the
 * result itself.
 *
 * Whatever the fast path cannot price exactly (a dimension with more than 4 decimals or beyond
 * 9,000 in, a rate card outside the compiled bounds, an intermediate past 2^53) and every refusal
 * go to the reference: it alone words the errors, so they cannot drift, and a request outside the
 * fast domain is slower, never different. docs/pricing.md section 11 has the arithmetic;
 * test/unit/fast-engine-equivalence.test.ts compares the two on 100,000 random requests.
 */
import type { CalculationLineItem } from './request';
import { divisorFor, plain, priceFromCost, priceQuoteReference, resolveMargin, type Divisor, type PriceQuoteInput, type PricedComponent, type PricedLineItem, type PricedQuote } from './reference-engine';
import { compiledRateCard, FAST_BOUNDS, type CompiledLength, type CompiledRateCard, type CompiledSku, type CompiledTier } from './compiled-rate-card';
import { PricingError } from './errors';
import { checkedAdd, checkedMul, divHalfUp, divHalfUpBig, fixed4, mulDivHalfUp, OUTSIDE_FAST_DOMAIN, toTenThousandths, UNIT } from './scaled';

/** W * H / 144 in ten-thousandths: (W_1e4 / 10^4) * (H_1e4 / 10^4) / 144 * 10^4. */
const SQUARE_FOOT_DIVISOR = 144 * UNIT;
const MAX_DIMENSION = FAST_BOUNDS.dimensionInches * UNIT;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Thrown inside the fast path for a request only the reference may answer (a refusal). */
const REFUSED: unique symbol = Symbol('refused: the reference words the error');

/** Prices with the scaled-integer engine, or with the reference where the fast path declines. */
export function priceQuote(input: PriceQuoteInput): PricedQuote {
  return priceQuoteFast(input) ?? priceQuoteReference(input);
}

/**
 * The fast path alone: the priced quote, or undefined when the request is refused or outside the
 * fast domain (the property test uses this to show which path answered).
 */
export function priceQuoteFast(input: PriceQuoteInput): PricedQuote | undefined {
  const card = compiledRateCard(input.rateCard);
  if (!card) return undefined;
  try {
    return priceCompiled(card, input);
  } catch (error) {
    if (error === OUTSIDE_FAST_DOMAIN || error === REFUSED || error instanceof PricingError) return undefined;
    throw error;
  }
}

/** 1 - margin as Numbers when exact, for a ceiling without BigInt on every line. */
interface LinePricing {
  divisor: Divisor;
  scale: number;
  numerator: number;
}

function priceCompiled(card: CompiledRateCard, input: PriceQuoteInput): PricedQuote {
  const { request } = input;
  const tier = card.tiers.get(request.laborTierCode);
  if (!tier) throw REFUSED;
  const { applied, overridden } = resolveMargin(request, card.marginFloor, input.overrideAuthorised);
  const divisor = divisorFor(applied);
  const pricing: LinePricing = { divisor, scale: Number(divisor.scale), numerator: Number(divisor.numerator) };

  const lines = request.lineItems;
  const lineItems: PricedLineItem[] = new Array<PricedLineItem>(lines.length);
  let costCents = 0;
  let amountCents = 0;
  for (let index = 0; index < lines.length; index++) {
    const priced = priceLine(card, tier, pricing, lines[index]!, index);
    lineItems[index] = priced;
    costCents = checkedAdd(costCents, priced.cost_cents);
    amountCents = checkedAdd(amountCents, priced.price_cents);
  }
  const profitCents = amountCents - costCents;
  const appliedText = plain(applied);
  const t = tier.laborTier;
  return {
    currency: 'CAD',
    labor_tier: { code: t.code, name: t.name, hourly_rate_cents: t.hourly_rate_cents, multiplier: t.multiplier },
    margin_floor: card.marginFloorText,
    applied_margin: appliedText,
    floor_overridden: overridden,
    target_margin: appliedText,
    line_items: lineItems,
    totals: {
      cost_cents: costCents,
      amount_cents: amountCents,
      profit_cents: profitCents,
      margin_percent: fixed4(marginTenThousandths(profitCents, amountCents)),
    },
    assumptions: { ...card.assumptions },
  };
}

/** R9: r4(profit / amount); 0 for a quote of zero amount. */
function marginTenThousandths(profitCents: number, amountCents: number): number {
  if (amountCents === 0) return 0;
  const scaled = profitCents * UNIT;
  if (scaled <= MAX_SAFE) return divHalfUp(scaled, amountCents);
  return Number(divHalfUpBig(BigInt(profitCents) * BigInt(UNIT), BigInt(amountCents)));
}

/** R1: r4(W - deduction), refused unless positive. */
function cutLess(widthScaled: number, deduction: CompiledLength): number {
  const exact = widthScaled * deduction.factor - deduction.scaled;
  if (exact <= 0) throw REFUSED;
  const length = deduction.factor === 1 ? exact : divHalfUp(exact, deduction.factor);
  if (length === 0) throw REFUSED;
  return length;
}

/** R1: r4(H + allowance). */
function cutPlus(dropScaled: number, allowance: CompiledLength): number {
  const exact = checkedAdd(dropScaled * allowance.factor, allowance.scaled);
  return allowance.factor === 1 ? exact : divHalfUp(exact, allowance.factor);
}

function skuOf(skus: ReadonlyMap<string, CompiledSku>, code: string): CompiledSku {
  const sku = skus.get(code);
  // Unknown, or a code of another component: the reference names which.
  if (!sku) throw REFUSED;
  return sku;
}

function priceLine(card: CompiledRateCard, tier: CompiledTier, pricing: LinePricing, line: CalculationLineItem, index: number): PricedLineItem {
  const byComponent = card.skusByComponent;
  const fabricSku = skuOf(byComponent.fabric, line.fabricSkuCode);
  const hardwareSku = skuOf(byComponent.hardware, line.hardwareSkuCode);
  const motorSku = line.motorSkuCode === undefined ? undefined : skuOf(byComponent.motor, line.motorSkuCode);
  const trimSku = line.trimSkuCode === undefined ? undefined : skuOf(byComponent.trim, line.trimSkuCode);

  const width = toTenThousandths(line.widthInches, MAX_DIMENSION / UNIT);
  const drop = toTenThousandths(line.dropInches, MAX_DIMENSION / UNIT);
  if (width === undefined || drop === undefined) throw OUTSIDE_FAST_DOMAIN;
  const quantity = line.quantity;

  // R1-R4, per unit.
  const tube = cutLess(width, card.tube);
  const hembar = cutLess(width, card.hembar);
  const fabricWidth = cutLess(width, card.fabricWidth);
  const fabricDrop = cutPlus(drop, card.fabricDrop);
  const fabricSquareFeet = mulDivHalfUp(fabricWidth, fabricDrop, SQUARE_FOOT_DIVISOR);
  const fabricWithWaste = mulDivHalfUp(fabricSquareFeet, card.wasteNumerator, card.wasteDenominator);
  const opening = mulDivHalfUp(width, drop, SQUARE_FOOT_DIVISOR);

  // R5: labour hours per unit, the motorisation hours only with a motor.
  let rawHours = checkedAdd(card.baseTerm, checkedMul(card.perSquareFoot, opening));
  if (motorSku) rawHours = checkedAdd(rawHours, card.motorTerm);
  const labourHours = checkedMul(mulDivHalfUp(rawHours, tier.multiplier, tier.hoursDivisor), quantity);

  // R6-R7: components, each extended to whole cents.
  const measures: Measures = { width, tube, fabricDrop, fabricWithWaste, opening, wasteNumerator: card.wasteNumerator, wasteDenominator: card.wasteDenominator };
  const components: PricedComponent[] = [skuComponent(fabricSku, measures, quantity), skuComponent(hardwareSku, measures, quantity)];
  if (motorSku) components.push(skuComponent(motorSku, measures, quantity));
  if (trimSku) components.push(skuComponent(trimSku, measures, quantity));
  const labourCost = mulDivHalfUp(labourHours, tier.tier.hourlyRateCents, UNIT);
  components.push({
    component: 'labour',
    sku_code: null,
    description: tier.labourDescription,
    quantity: fixed4(labourHours),
    unit: 'hour',
    unit_cost_cents: tier.rateText,
    extended_cost_cents: labourCost,
  });

  let costCents = 0;
  for (const component of components) costCents = checkedAdd(costCents, component.extended_cost_cents);

  return {
    reference: line.reference ?? null,
    width_inches: line.widthInches,
    drop_inches: line.dropInches,
    quantity,
    opening_square_feet: fixed4(checkedMul(opening, quantity)),
    fabric_square_feet_with_waste: fixed4(checkedMul(fabricWithWaste, quantity)),
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
    price_cents: priceOf(costCents, pricing, index),
  };
}

/** R8: ceiling(cost / (1 - margin)) with the margin as numerator / scale; BigInt only past 2^53. */
function priceOf(costCents: number, pricing: LinePricing, index: number): number {
  const scaled = costCents * pricing.scale;
  if (scaled > MAX_SAFE || pricing.numerator > MAX_SAFE) return priceFromCost(costCents, pricing.divisor, `lineItems.${index}`);
  const price = Math.floor(scaled / pricing.numerator);
  return price * pricing.numerator < scaled ? price + 1 : price;
}

/** Per-unit measures a SKU's quantity is read from (docs/pricing.md step 5), in ten-thousandths. */
interface Measures {
  width: number;
  tube: number;
  fabricDrop: number;
  fabricWithWaste: number;
  opening: number;
  wasteNumerator: number;
  wasteDenominator: number;
}

/** R6: the per-unit quantity of a SKU. */
function quantityPerUnit(sku: CompiledSku, m: Measures): number {
  switch (sku.measure) {
    case 'each':
      return UNIT;
    case 'fabric_with_waste':
      return m.fabricWithWaste;
    case 'opening':
      return m.opening;
    case 'fabric_running_feet':
      return mulDivHalfUp(m.fabricDrop, m.wasteNumerator, 12 * m.wasteDenominator);
    case 'tube_feet':
      return divHalfUp(m.tube, 12);
    case 'width_feet':
      return divHalfUp(m.width, 12);
  }
}

function skuComponent(sku: CompiledSku, m: Measures, quantity: number): PricedComponent {
  const lineQuantity = checkedMul(quantityPerUnit(sku, m), quantity);
  return {
    component: sku.component,
    sku_code: sku.code,
    description: sku.description,
    quantity: fixed4(lineQuantity),
    unit: sku.unit,
    unit_cost_cents: sku.unitCostText,
    // R7: whole cents, half-up.
    extended_cost_cents: mulDivHalfUp(lineQuantity, sku.unitCost, sku.costDivisor),
  };
}

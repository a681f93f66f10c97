/**
 * A rate-card revision compiled once for the scaled-integer engine (docs/pricing.md section 11):
 * every setting as an exact integer with its power of ten, every echoed text already formatted,
 * the SKUs split by component. A revision never changes (D2), so the compiled card is kept beside
 * the snapshot object it came from (the repository holds one snapshot per revision id).
 *
 * A card with a value outside the bounds below compiles to `undefined` and every quote on it is
 * priced by the reference engine: the bounds are what keep the fast engine's integers exact and
 * the reference's 40-digit arithmetic free of rounding (section 11 has the arithmetic).
 */
import type Decimal from 'decimal.js';
import type { RateCardLabourTier, RateCardSnapshot, SkuComponent, SkuUnit } from './rate-card';
import { Dec, plain } from './reference-engine';
import { UNIT } from './scaled';

/** Most decimal places a rate-card value may carry on the fast path. */
const MAX_RATE_CARD_DECIMALS = 6;
/** Upper bounds of the fast path, far above any real card (docs/pricing.md section 11). */
export const FAST_BOUNDS = {
  /** Widths and drops, inches. */
  dimensionInches: 9_000,
  deductionInches: 10_000,
  wasteFactor: 10,
  hours: 1_000,
  hoursPerSquareFoot: 10,
  tierMultiplier: 100,
  unitCostCents: 1_000_000_000,
  hourlyRateCents: 1_000_000_000,
} as const;

/** What a SKU's per-shade quantity is measured from (docs/pricing.md step 5). */
export type Measure = 'each' | 'fabric_with_waste' | 'opening' | 'fabric_running_feet' | 'tube_feet' | 'width_feet';

export interface CompiledSku {
  code: string;
  component: SkuComponent;
  description: string;
  unit: SkuUnit;
  measure: Measure;
  /** unit_cost_cents as the result prints it. */
  unitCostText: string;
  /** unitCostCents = unitCost / 10^k; extended cost = round(quantity_1e4 * unitCost / costDivisor). */
  unitCost: number;
  costDivisor: number;
  /** Request path suffix of the SKU's field, e.g. `fabricSkuCode`. */
  fieldSuffix: string;
}

/** A deduction or allowance: length = r4(W -/+ value / 10^k) = round((W_1e4 * factor -/+ scaled) / factor). */
export interface CompiledLength {
  scaled: number;
  factor: number;
}

export interface CompiledTier {
  tier: RateCardLabourTier;
  labourDescription: string;
  rateText: string;
  /** labour hours per unit (1e-4 h) = round(raw * multiplier / hoursDivisor). */
  multiplier: number;
  hoursDivisor: number;
  /** The result's labor_tier object, shared by every quote on this tier (never mutated). */
  laborTier: { code: string; name: string; hourly_rate_cents: number; multiplier: string };
}

export interface CompiledRateCard {
  marginFloor: Decimal;
  marginFloorText: string;
  tube: CompiledLength;
  hembar: CompiledLength;
  fabricWidth: CompiledLength;
  fabricDrop: CompiledLength;
  /** 1 + fabric waste factor = wasteNumerator / wasteDenominator. */
  wasteNumerator: number;
  wasteDenominator: number;
  /**
   * Raw labour hours at 10^hoursScale: baseTerm + perSquareFoot * opening_1e4 (+ motorTerm), one
   * common power of ten chosen from the card's own decimals so the integers stay small.
   */
  baseTerm: number;
  perSquareFoot: number;
  motorTerm: number;
  hoursScale: number;
  tiers: ReadonlyMap<string, CompiledTier>;
  skusByComponent: Readonly<Record<SkuComponent, ReadonlyMap<string, CompiledSku>>>;
  assumptions: {
    fabric_waste_factor: string;
    labour_base_hours_per_unit: string;
    labour_hours_per_square_foot: string;
    labour_motorisation_hours: string;
  };
}

const compiled = new WeakMap<RateCardSnapshot, CompiledRateCard | null>();

/** The compiled form of a snapshot, built on first use; undefined when the card is outside the fast path. */
export function compiledRateCard(card: RateCardSnapshot): CompiledRateCard | undefined {
  let entry = compiled.get(card);
  if (entry === undefined) {
    entry = compileRateCard(card) ?? null;
    compiled.set(card, entry);
  }
  return entry ?? undefined;
}

class OutsideBounds extends Error {}

/** A non-negative decimal of at most MAX_RATE_CARD_DECIMALS places and at most `max`, as integer / 10^places. */
function exact(text: string, max: number): { value: Decimal; integer: number; places: number } {
  const value = new Dec(text);
  const places = value.decimalPlaces();
  if (value.isNeg() || value.gt(max) || places > MAX_RATE_CARD_DECIMALS) throw new OutsideBounds(text);
  return { value, integer: value.times(10 ** places).toNumber(), places };
}

function compileLength(text: string): CompiledLength {
  const { integer, places } = exact(text, FAST_BOUNDS.deductionInches);
  // Lengths are compared at 10^max(4, places): exact for the deduction, and W has 4 places.
  if (places <= 4) return { scaled: integer * 10 ** (4 - places), factor: 1 };
  return { scaled: integer, factor: 10 ** (places - 4) };
}

function measureOf(component: SkuComponent, unit: SkuUnit): Measure {
  switch (unit) {
    case 'each':
      return 'each';
    case 'sq_ft':
      return component === 'fabric' ? 'fabric_with_waste' : 'opening';
    case 'linear_ft':
      if (component === 'fabric') return 'fabric_running_feet';
      return component === 'trim' ? 'width_feet' : 'tube_feet';
  }
}

export function compileRateCard(card: RateCardSnapshot): CompiledRateCard | undefined {
  try {
    return compileOrThrow(card);
  } catch (error) {
    if (error instanceof OutsideBounds) return undefined;
    throw error;
  }
}

function compileOrThrow(card: RateCardSnapshot): CompiledRateCard {
  const waste = exact(card.fabricWasteFactor, FAST_BOUNDS.wasteFactor);
  const base = exact(card.labourBaseHoursPerUnit, FAST_BOUNDS.hours);
  const perSquareFoot = exact(card.labourHoursPerSquareFoot, FAST_BOUNDS.hoursPerSquareFoot);
  const motor = exact(card.labourMotorisationHours, FAST_BOUNDS.hours);
  // perSquareFoot multiplies the opening, itself in ten-thousandths of a square foot.
  const hoursScale = Math.max(base.places, perSquareFoot.places + 4, motor.places);

  const tiers = new Map<string, CompiledTier>();
  for (const tier of card.labourTiers.values()) {
    const multiplier = exact(tier.multiplier, FAST_BOUNDS.tierMultiplier);
    if (!Number.isSafeInteger(tier.hourlyRateCents) || tier.hourlyRateCents < 0 || tier.hourlyRateCents > FAST_BOUNDS.hourlyRateCents) {
      throw new OutsideBounds(String(tier.hourlyRateCents));
    }
    const multiplierText = plain(multiplier.value);
    tiers.set(tier.code, {
      tier,
      labourDescription: `Installation labour, ${tier.name}`,
      rateText: plain(new Dec(tier.hourlyRateCents)),
      multiplier: multiplier.integer,
      // raw / 10^hoursScale * multiplier / 10^places, in ten-thousandths of an hour.
      hoursDivisor: 10 ** (hoursScale + multiplier.places - 4),
      laborTier: { code: tier.code, name: tier.name, hourly_rate_cents: tier.hourlyRateCents, multiplier: multiplierText },
    });
  }

  const skusByComponent: Record<SkuComponent, Map<string, CompiledSku>> = { fabric: new Map(), hardware: new Map(), motor: new Map(), trim: new Map() };
  for (const sku of card.skus.values()) {
    const cost = exact(sku.unitCostCents, FAST_BOUNDS.unitCostCents);
    skusByComponent[sku.component].set(sku.code, {
      code: sku.code,
      component: sku.component,
      description: sku.description,
      unit: sku.unit,
      measure: measureOf(sku.component, sku.unit),
      unitCostText: plain(cost.value),
      unitCost: cost.integer,
      costDivisor: UNIT * 10 ** cost.places,
      fieldSuffix: `${sku.component}SkuCode`,
    });
  }

  return {
    marginFloor: new Dec(card.marginFloor),
    marginFloorText: plain(new Dec(card.marginFloor)),
    tube: compileLength(card.tubeDeductionInches),
    hembar: compileLength(card.hembarDeductionInches),
    fabricWidth: compileLength(card.fabricWidthDeductionInches),
    fabricDrop: compileLength(card.fabricDropAllowanceInches),
    wasteNumerator: 10 ** waste.places + waste.integer,
    wasteDenominator: 10 ** waste.places,
    baseTerm: base.integer * 10 ** (hoursScale - base.places),
    perSquareFoot: perSquareFoot.integer * 10 ** (hoursScale - perSquareFoot.places - 4),
    motorTerm: motor.integer * 10 ** (hoursScale - motor.places),
    hoursScale,
    tiers,
    skusByComponent,
    assumptions: {
      fabric_waste_factor: plain(waste.value),
      labour_base_hours_per_unit: plain(base.value),
      labour_hours_per_square_foot: plain(perSquareFoot.value),
      labour_motorisation_hours: plain(motor.value),
    },
  };
}

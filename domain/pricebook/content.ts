import type { RateCardLabourTier, RateCardSettings, RateCardSku, SkuComponent, SkuUnit } from '../pricing/rate-card';
import { FAST_BOUNDS } from '../pricing/compiled-rate-card';

/**
 * D21: one revision of a tenant's price book, whole, in the shape the `/v1/pricebooks` interface
 * answers and a change set names (snake_case, so a complaint's dotted path is the body's own:
 * `changes.3.sku.unit_cost_cents`). Every exact decimal is a string.
 */
export const SKU_COMPONENTS = ['fabric', 'hardware', 'motor', 'trim'] as const satisfies readonly SkuComponent[];
export const SKU_UNITS = ['sq_ft', 'each', 'linear_ft'] as const satisfies readonly SkuUnit[];

export interface PricebookSku {
  code: string;
  component: SkuComponent;
  description: string;
  unit: SkuUnit;
  /** Exact decimal; may carry fractions of a cent (D2). */
  unit_cost_cents: string;
  active: boolean;
}

export interface PricebookLabourTier {
  code: string;
  name: string;
  hourly_rate_cents: number;
  multiplier: string;
}

/** D14: a product bundles a fabric, a hardware and optionally a trim SKU. */
export interface PricebookProduct {
  sku: string;
  name: string;
  fabric_sku: string;
  hardware_sku: string;
  trim_sku: string | null;
  active: boolean;
}

export type SettingName =
  | 'margin_floor'
  | 'fabric_waste_factor'
  | 'labour_base_hours_per_unit'
  | 'labour_hours_per_square_foot'
  | 'labour_motorisation_hours'
  | 'tube_deduction_inches'
  | 'hembar_deduction_inches'
  | 'fabric_width_deduction_inches'
  | 'fabric_drop_allowance_inches';

export type PricebookSettings = Record<SettingName, string>;

export interface PricebookContent {
  settings: PricebookSettings;
  skus: PricebookSku[];
  labour_tiers: PricebookLabourTier[];
  products: PricebookProduct[];
}

/**
 * Every D2 setting, its name in the engine's rate card and its bounds, as data. The upper bounds
 * are the production engine's fast domain (FAST_BOUNDS, docs/pricing.md section 11), so a
 * published card is always priced by the fast path; `upperOpen` excludes the bound itself.
 */
export const SETTING_RULES: readonly { name: SettingName; field: keyof RateCardSettings; min: string; max: string; upperOpen?: true }[] = [
  { name: 'margin_floor', field: 'marginFloor', min: '0', max: '1', upperOpen: true },
  { name: 'fabric_waste_factor', field: 'fabricWasteFactor', min: '0', max: String(FAST_BOUNDS.wasteFactor) },
  { name: 'labour_base_hours_per_unit', field: 'labourBaseHoursPerUnit', min: '0', max: String(FAST_BOUNDS.hours) },
  { name: 'labour_hours_per_square_foot', field: 'labourHoursPerSquareFoot', min: '0', max: String(FAST_BOUNDS.hoursPerSquareFoot) },
  { name: 'labour_motorisation_hours', field: 'labourMotorisationHours', min: '0', max: String(FAST_BOUNDS.hours) },
  { name: 'tube_deduction_inches', field: 'tubeDeductionInches', min: '0', max: String(FAST_BOUNDS.deductionInches) },
  { name: 'hembar_deduction_inches', field: 'hembarDeductionInches', min: '0', max: String(FAST_BOUNDS.deductionInches) },
  { name: 'fabric_width_deduction_inches', field: 'fabricWidthDeductionInches', min: '0', max: String(FAST_BOUNDS.deductionInches) },
  { name: 'fabric_drop_allowance_inches', field: 'fabricDropAllowanceInches', min: '0', max: String(FAST_BOUNDS.deductionInches) },
];

export const SETTING_NAMES = SETTING_RULES.map((rule) => rule.name) as [SettingName, ...SettingName[]];

/** At most this many decimal places in any published decimal (the fast engine's domain). */
export const MAX_DECIMAL_PLACES = 6;
export const COST_BOUNDS = { unitCostCents: String(FAST_BOUNDS.unitCostCents), hourlyRateCents: FAST_BOUNDS.hourlyRateCents, tierMultiplier: String(FAST_BOUNDS.tierMultiplier) };

export function settingsFromRateCard(settings: RateCardSettings): PricebookSettings {
  return Object.fromEntries(SETTING_RULES.map((rule) => [rule.name, settings[rule.field]])) as PricebookSettings;
}

export function settingsToRateCard(settings: PricebookSettings): RateCardSettings {
  return Object.fromEntries(SETTING_RULES.map((rule) => [rule.field, settings[rule.name]])) as unknown as RateCardSettings;
}

export const skuToRateCard = (sku: PricebookSku): RateCardSku => ({ code: sku.code, component: sku.component, description: sku.description, unit: sku.unit, unitCostCents: sku.unit_cost_cents });
export const tierToRateCard = (tier: PricebookLabourTier): RateCardLabourTier => ({ code: tier.code, name: tier.name, hourlyRateCents: tier.hourly_rate_cents, multiplier: tier.multiplier });

/** Lists in one order (by code or sku), so two revisions compare and print alike. */
export function sortedContent(content: PricebookContent): PricebookContent {
  const byKey = <T>(key: (item: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
  return {
    settings: content.settings,
    skus: [...content.skus].sort(byKey((s) => s.code)),
    labour_tiers: [...content.labour_tiers].sort(byKey((t) => t.code)),
    products: [...content.products].sort(byKey((p) => p.sku)),
  };
}

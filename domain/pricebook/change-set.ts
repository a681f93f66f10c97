import Decimal from 'decimal.js';
import { z } from 'zod';
import {
  COST_BOUNDS,
  MAX_DECIMAL_PLACES,
  SETTING_NAMES,
  SETTING_RULES,
  SKU_COMPONENTS,
  SKU_UNITS,
  sortedContent,
  type PricebookContent,
  type PricebookLabourTier,
  type PricebookProduct,
  type PricebookSku,
} from './content';
import { readFormulaSafeText } from './formula-text';

/**
 * D21: a change set against a price book revision, and the one rule that applies it. The zod
 * schemas say what a change looks like (the API validates bodies with them, so a malformed value
 * is refused at its dotted path before this runs); `applyChangeSet` says what the changes mean
 * and refuses, at their dotted paths, what the shape cannot: bounds, unknown codes, duplicates,
 * and products left pointing at SKUs they cannot use. The whole set applies or nothing does.
 */
const Dec = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });

export const CODE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._\/-]{0,63}$/;
const Code = z.string().regex(CODE_PATTERN, 'A code of 1-64 letters, digits, ".", "_", "/" or "-", starting with a letter or digit');
export const NON_NEGATIVE_DECIMAL = /^\d+(\.\d+)?$/;
const NonNegativeDecimal = z.string().regex(NON_NEGATIVE_DECIMAL, 'A non-negative exact decimal as a string, such as "437.5"');
const SignedDecimal = z.string().regex(/^-?\d+(\.\d+)?$/, 'An exact decimal as a string, such as "7.5" or "-3"');

export const SkuInput = z.strictObject({
  code: Code,
  component: z.enum(SKU_COMPONENTS),
  description: z
    .string()
    .min(1)
    .max(500)
    .meta({ description: 'Text that begins with =, +, -, @, a tab or a carriage return (a spreadsheet formula) is refused unless written with a leading apostrophe, which is removed' }),
  unit: z.enum(SKU_UNITS),
  unit_cost_cents: NonNegativeDecimal.meta({ description: 'Per-unit cost in cents, an exact decimal (fractions of a cent allowed)' }),
  active: z.boolean().default(true),
});

export const LabourTierInput = z.strictObject({
  code: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/, 'A code of 1-32 letters, digits, ".", "_" or "-"'),
  name: z.string().min(1).max(200),
  hourly_rate_cents: z.number().int().min(0).max(COST_BOUNDS.hourlyRateCents),
  multiplier: NonNegativeDecimal.meta({ description: 'Applied to the labour hours; greater than 0' }),
});

export const ProductInput = z.strictObject({
  sku: Code,
  name: z.string().min(1).max(200),
  fabric_sku: Code,
  hardware_sku: Code,
  trim_sku: Code.nullable().default(null),
  active: z.boolean().default(true),
});

export const Change = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('set_setting'), field: z.enum(SETTING_NAMES), value: NonNegativeDecimal }),
  z.strictObject({ op: z.literal('upsert_sku'), sku: SkuInput }),
  z.strictObject({ op: z.literal('deactivate_sku'), code: Code }),
  z.strictObject({ op: z.literal('upsert_labour_tier'), tier: LabourTierInput }),
  z.strictObject({
    op: z.literal('adjust_costs'),
    component: z.enum(SKU_COMPONENTS).optional().meta({ description: 'Omitted: every active SKU' }),
    percent: SignedDecimal.meta({ description: 'Percent, for example "7.5" or "-3"; -100 to 1000' }),
  }),
  z.strictObject({ op: z.literal('upsert_product'), product: ProductInput }),
]);
export type Change = z.output<typeof Change>;

/** A refused change set: every complaint at its dotted path, in the order of the changes. */
export class ChangeSetRefused extends Error {
  constructor(readonly complaints: Record<string, string>) {
    super(`change set refused: ${Object.entries(complaints).map(([path, why]) => `${path}: ${why}`).join('; ')}`);
  }
}

/** Decimal places of an exact decimal string. */
const placesOf = (text: string) => (text.includes('.') ? text.length - text.indexOf('.') - 1 : 0);

/** Plain text of an exact decimal, no exponent and no trailing zeros (as the engine echoes costs). */
export const plainDecimal = (value: Decimal) => value.toFixed();

function decimalComplaint(text: string, min: string, max: string, options: { upperOpen?: boolean; lowerOpen?: boolean } = {}): string | undefined {
  if (placesOf(text) > MAX_DECIMAL_PLACES) return `At most ${MAX_DECIMAL_PLACES} decimal places`;
  const value = new Dec(text);
  if (options.lowerOpen ? value.lte(min) : value.lt(min)) return options.lowerOpen ? `Must be greater than ${min}` : `Must be at least ${min}`;
  if (options.upperOpen ? value.gte(max) : value.gt(max)) return options.upperOpen ? `Must be less than ${max}` : `Must be at most ${max}`;
  return undefined;
}

/** The complaints about one SKU's values, by field (shared with the CSV import's rows). */
export function skuValueComplaints(sku: Pick<PricebookSku, 'unit_cost_cents'>): Record<string, string> {
  const cost = decimalComplaint(sku.unit_cost_cents, '0', COST_BOUNDS.unitCostCents);
  return cost ? { unit_cost_cents: cost } : {};
}

/**
 * adjust_costs (D21, docs/pricing.md section 12): `cost * (1 + percent / 100)`, exact, then rounded
 * half-up to as many decimal places as the cost carried before (a cost in whole cents stays in
 * whole cents, `437.5` keeps one place), never below zero.
 */
export function adjustedCost(cost: string, percent: string): string {
  const exact = new Dec(cost).times(new Dec(percent).div(100).plus(1));
  const rounded = exact.toDecimalPlaces(placesOf(cost), Decimal.ROUND_HALF_UP);
  return plainDecimal(Decimal.max(rounded, 0));
}

const normalised = (text: string) => plainDecimal(new Dec(text));

/**
 * Applies `changes` to `base` in order and answers the content of the new revision, or throws
 * ChangeSetRefused with every complaint. Pure: the caller loads the base and stores the result.
 */
export function applyChangeSet(base: PricebookContent, changes: readonly Change[]): PricebookContent {
  const complaints: Record<string, string> = {};
  const complain = (path: string, why: string) => {
    if (!(path in complaints)) complaints[path] = why;
  };
  if (changes.length === 0) complain('changes', 'At least one change');

  const settings = { ...base.settings };
  const skus = new Map(base.skus.map((s) => [s.code, { ...s }]));
  const tiers = new Map(base.labour_tiers.map((t) => [t.code, { ...t }]));
  const products = new Map(base.products.map((p) => [p.sku, { ...p }]));
  /** Which change last touched a SKU or product, so an inconsistency is reported where it was made. */
  const skuTouchedAt = new Map<string, string>();
  const productTouchedAt = new Map<string, string>();
  const seen = { setting: new Set<string>(), sku: new Set<string>(), tier: new Set<string>(), product: new Set<string>(), adjust: new Set<string>() };

  changes.forEach((change, index) => {
    const at = `changes.${index}`;
    switch (change.op) {
      case 'set_setting': {
        if (seen.setting.has(change.field)) return complain(`${at}.field`, `Setting ${change.field} is set twice in this change set`);
        seen.setting.add(change.field);
        const rule = SETTING_RULES.find((r) => r.name === change.field)!;
        const why = decimalComplaint(change.value, rule.min, rule.max, rule.upperOpen ? { upperOpen: true } : {});
        if (why) return complain(`${at}.value`, `${change.field}: ${why}`);
        settings[change.field] = normalised(change.value);
        return;
      }
      case 'upsert_sku': {
        const sku = change.sku;
        if (seen.sku.has(sku.code)) return complain(`${at}.sku.code`, `SKU ${sku.code} appears twice in this change set`);
        seen.sku.add(sku.code);
        for (const [field, why] of Object.entries(skuValueComplaints(sku))) complain(`${at}.sku.${field}`, why);
        // The CSV import's formula rule, so that text a spreadsheet would run enters by neither door.
        const description = readFormulaSafeText(sku.description);
        if ('complaint' in description) complain(`${at}.sku.description`, description.complaint);
        skus.set(sku.code, {
          ...sku,
          description: 'text' in description ? description.text : sku.description,
          unit_cost_cents: NON_NEGATIVE_DECIMAL.test(sku.unit_cost_cents) ? normalised(sku.unit_cost_cents) : sku.unit_cost_cents,
        });
        skuTouchedAt.set(sku.code, `${at}.sku.${sku.active ? 'component' : 'active'}`);
        return;
      }
      case 'deactivate_sku': {
        if (seen.sku.has(change.code)) return complain(`${at}.code`, `SKU ${change.code} appears twice in this change set`);
        seen.sku.add(change.code);
        const sku = skus.get(change.code);
        if (!sku) return complain(`${at}.code`, `Unknown SKU ${change.code}`);
        if (!sku.active) return complain(`${at}.code`, `SKU ${change.code} is already inactive`);
        sku.active = false;
        skuTouchedAt.set(change.code, `${at}.code`);
        return;
      }
      case 'upsert_labour_tier': {
        const tier = change.tier;
        if (seen.tier.has(tier.code)) return complain(`${at}.tier.code`, `Labour tier ${tier.code} appears twice in this change set`);
        seen.tier.add(tier.code);
        const why = decimalComplaint(tier.multiplier, '0', COST_BOUNDS.tierMultiplier, { lowerOpen: true });
        if (why) return complain(`${at}.tier.multiplier`, why);
        tiers.set(tier.code, { ...tier, multiplier: normalised(tier.multiplier) });
        return;
      }
      case 'adjust_costs': {
        const scope = change.component ?? '*';
        if (seen.adjust.has(scope)) return complain(`${at}.component`, `Costs of ${change.component ?? 'every component'} are adjusted twice in this change set`);
        seen.adjust.add(scope);
        if (placesOf(change.percent) > 4) return complain(`${at}.percent`, 'At most 4 decimal places');
        const percent = new Dec(change.percent);
        if (percent.lt(-100) || percent.gt(1000)) return complain(`${at}.percent`, 'Must be between -100 and 1000');
        let adjusted = 0;
        for (const sku of skus.values()) {
          if (!sku.active || (change.component && sku.component !== change.component)) continue;
          sku.unit_cost_cents = adjustedCost(sku.unit_cost_cents, change.percent);
          const why = skuValueComplaints(sku).unit_cost_cents;
          if (why) complain(`${at}.percent`, `SKU ${sku.code}: ${why}`);
          adjusted++;
        }
        if (adjusted === 0) complain(`${at}.component`, `No active SKU of ${change.component ?? 'any component'} to adjust`);
        return;
      }
      case 'upsert_product': {
        const product = change.product;
        if (seen.product.has(product.sku)) return complain(`${at}.product.sku`, `Product ${product.sku} appears twice in this change set`);
        seen.product.add(product.sku);
        products.set(product.sku, { ...product });
        productTouchedAt.set(product.sku, `${at}.product`);
        return;
      }
    }
  });

  // Products kept consistent with their SKUs: every active product names active SKUs of its components.
  for (const product of products.values()) {
    if (!product.active) continue;
    const slots: [keyof PricebookProduct, 'fabric' | 'hardware' | 'trim', string | null][] = [
      ['fabric_sku', 'fabric', product.fabric_sku],
      ['hardware_sku', 'hardware', product.hardware_sku],
      ['trim_sku', 'trim', product.trim_sku],
    ];
    for (const [slot, component, code] of slots) {
      if (code === null) continue;
      const sku = skus.get(code);
      const productAt = productTouchedAt.get(product.sku);
      const why = !sku
        ? `Unknown SKU ${code}`
        : !sku.active
          ? `SKU ${code} is inactive`
          : sku.component !== component
            ? `SKU ${code} is a ${sku.component} SKU, not ${component}`
            : undefined;
      if (!why) continue;
      if (productAt) complain(`${productAt}.${slot}`, why);
      else {
        const skuAt = skuTouchedAt.get(code) ?? 'changes';
        complain(skuAt, `SKU ${code} is used by active product ${product.sku} (${product.name}); change or deactivate the product in the same change set`);
      }
    }
  }

  if (Object.keys(complaints).length > 0) throw new ChangeSetRefused(complaints);
  return sortedContent({ settings, skus: [...skus.values()], labour_tiers: [...tiers.values()], products: [...products.values()] });
}

export type { PricebookLabourTier, PricebookProduct, PricebookSku };

import { SETTING_RULES, type PricebookContent } from './content';

/**
 * D21 `compare_to`: what changed from one revision to another, field by field. A SKU, tier or
 * product present on one side only shows each of its fields with `null` on the other side. The
 * same list is the audit event's `changes` for a publication (D22), with `field` spelled
 * `<entity>.<key>.<field>` there.
 */
export type ChangeEntity = 'setting' | 'sku' | 'labour_tier' | 'product';

export interface FieldChange {
  entity: ChangeEntity;
  key: string;
  field: string;
  before: unknown;
  after: unknown;
}

function diffLists<T extends object>(entity: ChangeEntity, keyOf: (item: T) => string, before: readonly T[], after: readonly T[], out: FieldChange[]): void {
  const was = new Map(before.map((item) => [keyOf(item), item]));
  const now = new Map(after.map((item) => [keyOf(item), item]));
  const keys = [...new Set([...was.keys(), ...now.keys()])].sort();
  for (const key of keys) {
    const a = was.get(key) as Record<string, unknown> | undefined;
    const b = now.get(key) as Record<string, unknown> | undefined;
    const fields = Object.keys((b ?? a)!);
    for (const field of fields) {
      const x = a ? a[field] : null;
      const y = b ? b[field] : null;
      if (x !== y) out.push({ entity, key, field, before: x ?? null, after: y ?? null });
    }
  }
}

/** Field-level changes from `before` to `after`: settings in their table order, then SKUs, tiers and products by code. */
export function compareRevisions(before: PricebookContent, after: PricebookContent): FieldChange[] {
  const out: FieldChange[] = [];
  for (const rule of SETTING_RULES) {
    if (before.settings[rule.name] !== after.settings[rule.name]) out.push({ entity: 'setting', key: rule.name, field: 'value', before: before.settings[rule.name], after: after.settings[rule.name] });
  }
  diffLists('sku', (s) => s.code, before.skus, after.skus, out);
  diffLists('labour_tier', (t) => t.code, before.labour_tiers, after.labour_tiers, out);
  diffLists('product', (p) => p.sku, before.products, after.products, out);
  return out;
}

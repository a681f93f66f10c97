import { priceQuote } from './domain/pricing/fast-engine';
import { buildRateCardSnapshot } from './domain/pricing/rate-card';
import { SANDBOX_RATE_CARD } from './db/rate-cards/sandbox-rate-cards';
const line = (i: number) => ({
  reference: `Window ${i + 1}`, widthInches: 24 + (i % 60) * 0.875, dropInches: 36 + (i % 40) * 1.5, quantity: 1 + (i % 4),
  fabricSkuCode: i % 2 ? 'FAB-SCREEN-3' : 'FAB-BLACKOUT', hardwareSkuCode: i % 5 ? 'HW-ROLLER-STD' : 'HW-ROLLER-HD',
  ...(i % 3 === 0 ? { motorSkuCode: 'MTR-BATTERY' } : {}), trimSkuCode: 'TRIM-CASSETTE',
});
const request = { laborTierCode: 'STANDARD', lineItems: Array.from({ length: 200 }, (_, i) => line(i)), persist: false };
const card = buildRateCardSnapshot({ revision: 'r', ...SANDBOX_RATE_CARD });
const time = (label: string, f: () => unknown, n = 1000) => { for (let i = 0; i < n; i++) f(); const t = process.hrtime.bigint(); for (let i = 0; i < n; i++) f(); console.log(label, (Number(process.hrtime.bigint() - t) / n / 1e6).toFixed(4), 'ms'); };
const result: any = { ...priceQuote({ request: request as never, rateCard: card, overrideAuthorised: false }), quote_id: null, quote_number: null, status: null, persisted: false };
const cache = new Map<string, string>();
const s = (v: string | null) => { if (v === null) return 'null'; let e = cache.get(v); if (e === undefined) { e = JSON.stringify(v); if (cache.size < 5000) cache.set(v, e); } return e; };
const d = (v: string) => '"' + v + '"';
const n = (v: number) => (Number.isFinite(v) ? String(v) : 'null');
function ser(r: any): string {
  const parts: string[] = [];
  parts.push('{"currency":', s(r.currency), ',"labor_tier":{"code":', s(r.labor_tier.code), ',"name":', s(r.labor_tier.name), ',"hourly_rate_cents":', n(r.labor_tier.hourly_rate_cents), ',"multiplier":', d(r.labor_tier.multiplier), '},"margin_floor":', d(r.margin_floor), ',"applied_margin":', d(r.applied_margin), ',"floor_overridden":', String(r.floor_overridden), ',"target_margin":', d(r.target_margin), ',"line_items":[');
  r.line_items.forEach((l: any, i: number) => {
    if (i) parts.push(',');
    const c = l.cut_list;
    parts.push('{"reference":', s(l.reference), ',"width_inches":', n(l.width_inches), ',"drop_inches":', n(l.drop_inches), ',"quantity":', n(l.quantity), ',"opening_square_feet":', d(l.opening_square_feet), ',"fabric_square_feet_with_waste":', d(l.fabric_square_feet_with_waste), ',"labour_hours":', d(l.labour_hours), ',"cut_list":{"tube_length_inches":', d(c.tube_length_inches), ',"hembar_length_inches":', d(c.hembar_length_inches), ',"fabric_width_inches":', d(c.fabric_width_inches), ',"fabric_drop_inches":', d(c.fabric_drop_inches), ',"fabric_square_feet":', d(c.fabric_square_feet), '},"components":[');
    l.components.forEach((k: any, j: number) => {
      if (j) parts.push(',');
      parts.push('{"component":', s(k.component), ',"sku_code":', s(k.sku_code), ',"description":', s(k.description), ',"quantity":', d(k.quantity), ',"unit":', s(k.unit), ',"unit_cost_cents":', d(k.unit_cost_cents), ',"extended_cost_cents":', n(k.extended_cost_cents), '}');
    });
    parts.push('],"cost_cents":', n(l.cost_cents), ',"price_cents":', n(l.price_cents), '}');
  });
  parts.push('],"totals":', JSON.stringify(r.totals), ',"assumptions":', JSON.stringify(r.assumptions), ',"quote_id":', s(r.quote_id), ',"quote_number":', r.quote_number === null ? 'null' : n(r.quote_number), ',"status":', s(r.status), ',"persisted":', String(r.persisted), '}');
  return parts.join('');
}
console.log(Object.keys(result).join(','), Object.keys(result.line_items[0]).join(','));
console.log('equal', ser(result) === JSON.stringify(result));
time('JSON.stringify + Buffer', () => Buffer.from(JSON.stringify(result), 'utf8'));
time('ser + Buffer', () => Buffer.from(ser(result), 'utf8'));
time('ser only', () => ser(result));

import Decimal from 'decimal.js';
import { SANDBOX_RATE_CARD } from '../../../db/rate-cards/sandbox-rate-cards';
import { SANDBOX_PRODUCTS } from '../../../db/catalogue/sandbox-products';
import { settingsFromRateCard, type PricebookContent } from '../../../domain/pricebook/content';
import { applyChangeSet, type Change } from '../../../domain/pricebook/change-set';
import { compareRevisions } from '../../../domain/pricebook/compare';
import { exportRecords } from '../../../domain/pricebook/csv-rows';
import { SANDBOX_ORGANIZATION_ID } from '../../auth/examples';
import { formatCsv } from './csv';

/** D21's examples: the sandbox price book, and docs/pricing.md section 12's 7.5 % fabric increase published for a Monday. */
const plain = (text: string) => new Decimal(text).toFixed();
const SANDBOX_CONTENT: PricebookContent = {
  settings: Object.fromEntries(Object.entries(settingsFromRateCard(SANDBOX_RATE_CARD.settings)).map(([k, v]) => [k, plain(v)])) as PricebookContent['settings'],
  skus: SANDBOX_RATE_CARD.skus.map((s) => ({ code: s.code, component: s.component, description: s.description, unit: s.unit, unit_cost_cents: s.unitCostCents, active: true })),
  labour_tiers: SANDBOX_RATE_CARD.labourTiers.map((t) => ({ code: t.code, name: t.name, hourly_rate_cents: t.hourlyRateCents, multiplier: t.multiplier })),
  products: SANDBOX_PRODUCTS.map((p) => ({ sku: p.sku, name: p.name, fabric_sku: p.fabricSkuCode, hardware_sku: p.hardwareSkuCode, trim_sku: p.trimSkuCode ?? null, active: true })),
};

export const EXAMPLE_BASE_REVISION = '2026-11-01T00:00:00.000Z';
export const EXAMPLE_NEW_REVISION = '2026-11-26T15:04:05.123Z';
export const EXAMPLE_MONDAY = '2026-11-30T05:00:00.000Z';

export const PUBLISH_EXAMPLE_BODY = {
  base_revision: EXAMPLE_BASE_REVISION,
  changes: [{ op: 'adjust_costs', component: 'fabric', percent: '7.5' }] satisfies Change[],
  effective_from: EXAMPLE_MONDAY,
};
const increased = applyChangeSet(SANDBOX_CONTENT, PUBLISH_EXAMPLE_BODY.changes);

export const CURRENT_REVISION_EXAMPLE = { id: SANDBOX_ORGANIZATION_ID, revision: EXAMPLE_BASE_REVISION, effective_from: EXAMPLE_BASE_REVISION, current: true, ...SANDBOX_CONTENT };
export const PUBLISHED_REVISION_EXAMPLE = {
  id: SANDBOX_ORGANIZATION_ID,
  revision: EXAMPLE_NEW_REVISION,
  effective_from: EXAMPLE_MONDAY,
  current: false,
  ...increased,
  changes: compareRevisions(SANDBOX_CONTENT, increased),
};
export const REVISION_PAGE_EXAMPLE = {
  data: [
    { revision: EXAMPLE_NEW_REVISION, effective_from: EXAMPLE_MONDAY, current: false, published_by_user_id: '0b6f2c1e-7d4a-4c3b-9e2f-5a8d1c4b7e90' },
    { revision: EXAMPLE_BASE_REVISION, effective_from: EXAMPLE_BASE_REVISION, current: true, published_by_user_id: null },
  ],
  next_cursor: null,
  has_more: false,
};
export const EXPORT_EXAMPLE = formatCsv(exportRecords(SANDBOX_CONTENT)).replace(/^\uFEFF/, '');
export const IMPORT_EXAMPLE_CSV = [
  'code,component,description,unit,unit_cost_cents,active',
  'FAB-SCREEN-3,fabric,"Solar screen fabric, 3% openness",sq_ft,470.3,true',
  'FAB-LINEN,fabric,"Linen-look fabric, light filtering",sq_ft,412.25,true',
  'TRIM-FASCIA,trim,"Fascia cover, fabric-wrapped",linear_ft,862.5,true',
].join('\r\n');
export const IMPORT_RESULT_EXAMPLE = {
  dry_run: true,
  summary: { rows: 3, created: 1, updated: 1, unchanged: 1, refused: 0 },
  results: [
    { row: 2, code: 'FAB-SCREEN-3', result: 'updated' as const },
    { row: 3, code: 'FAB-LINEN', result: 'created' as const },
    { row: 4, code: 'TRIM-FASCIA', result: 'unchanged' as const },
  ],
  revision: null,
};

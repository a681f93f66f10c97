import { describe, expect, it } from '@jest/globals';
import { adjustedCost, applyChangeSet, ChangeSetRefused, Change } from '../../domain/pricebook/change-set';
import { compareRevisions } from '../../domain/pricebook/compare';
import { CsvRefused, checkHeader, decodeCsvBytes, escapeCell, exportRecords, MAX_CSV_ROWS, planImport } from '../../domain/pricebook/csv-rows';
import { settingsFromRateCard, type PricebookContent } from '../../domain/pricebook/content';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';

// D21's rules, pure: the change set, adjust_costs rounding, comparison, and the CSV rows.
const BOOK: PricebookContent = {
  settings: settingsFromRateCard(SANDBOX_RATE_CARD.settings),
  skus: SANDBOX_RATE_CARD.skus.map((s) => ({ code: s.code, component: s.component, description: s.description, unit: s.unit, unit_cost_cents: s.unitCostCents, active: true })),
  labour_tiers: SANDBOX_RATE_CARD.labourTiers.map((t) => ({ code: t.code, name: t.name, hourly_rate_cents: t.hourlyRateCents, multiplier: t.multiplier })),
  products: [{ sku: 'ROLLER-SCREEN', name: 'Screen roller', fabric_sku: 'FAB-SCREEN-3', hardware_sku: 'HW-ROLLER-STD', trim_sku: null, active: true }],
};
const refusal = (changes: unknown[]) => {
  try {
    applyChangeSet(BOOK, changes.map((c) => Change.parse(c)));
  } catch (error) {
    if (error instanceof ChangeSetRefused) return error.complaints;
    throw error;
  }
  throw new Error('accepted');
};

describe('D21 adjust_costs: exact, then half-up to the places the cost carried', () => {
  it.each([
    ['437.5', '7.5', '470.3'], // 470.3125
    ['396.75', '7.5', '426.51'], // 426.50625
    ['725', '10', '798'], // 797.5: a tie rounds up
    ['1087.5', '10', '1196.3'], // 1196.25
    ['23900', '-3', '23183'],
    ['0.005', '-50', '0.003'], // 0.0025
    ['100', '-100', '0'],
    ['19850', '0.0001', '19850'],
  ])('%s by %s %% is %s', (cost, percent, expected) => expect(adjustedCost(cost, percent)).toBe(expected));
});

describe('D21 change sets', () => {
  it('applies every op in order and answers the content of the new revision, lists sorted', () => {
    const next = applyChangeSet(BOOK, [
      { op: 'set_setting', field: 'margin_floor', value: '0.400' },
      { op: 'adjust_costs', component: 'fabric', percent: '7.5' },
      { op: 'upsert_labour_tier', tier: { code: 'NIGHT', name: 'Night work', hourly_rate_cents: 14000, multiplier: '1.5' } },
      { op: 'upsert_product', product: { sku: 'ROLLER-BLACKOUT', name: 'Blackout roller', fabric_sku: 'FAB-BLACKOUT', hardware_sku: 'HW-ROLLER-HD', trim_sku: 'TRIM-FASCIA', active: true } },
      { op: 'deactivate_sku', code: 'MTR-WIRED' },
    ]);
    expect(next.settings.margin_floor).toBe('0.4');
    expect(next.skus.filter((s) => s.component === 'fabric').map((s) => s.unit_cost_cents)).toEqual(['426.51', '470.3']);
    expect(next.skus.find((s) => s.code === 'MTR-WIRED')!.active).toBe(false);
    expect(next.labour_tiers.map((t) => t.code)).toEqual(['NIGHT', 'PREMIUM', 'STANDARD']);
    expect(next.products.map((p) => p.sku)).toEqual(['ROLLER-BLACKOUT', 'ROLLER-SCREEN']);
    // The base is untouched: a revision is never edited.
    expect(BOOK.skus.find((s) => s.code === 'FAB-SCREEN-3')!.unit_cost_cents).toBe('437.5');
  });

  it('reports every complaint at its dotted path, and nothing applies', () => {
    expect(refusal([
      { op: 'set_setting', field: 'labour_hours_per_square_foot', value: '10.5' },
      { op: 'upsert_sku', sku: { code: 'X', component: 'trim', description: 'x', unit: 'each', unit_cost_cents: '1000000001' } },
      { op: 'upsert_sku', sku: { code: 'X', component: 'trim', description: 'x', unit: 'each', unit_cost_cents: '1' } },
      { op: 'deactivate_sku', code: 'HW-ROLLER-STD' },
      { op: 'adjust_costs', component: 'trim', percent: '1.00001' },
      { op: 'set_setting', field: 'margin_floor', value: '0.1234567' },
    ])).toEqual({
      'changes.0.value': 'labour_hours_per_square_foot: Must be at most 10',
      'changes.1.sku.unit_cost_cents': 'Must be at most 1000000000',
      'changes.2.sku.code': 'SKU X appears twice in this change set',
      'changes.3.code': 'SKU HW-ROLLER-STD is used by active product ROLLER-SCREEN (Screen roller); change or deactivate the product in the same change set',
      'changes.4.percent': 'At most 4 decimal places',
      'changes.5.value': 'margin_floor: At most 6 decimal places',
    });
    expect(refusal([])).toEqual({ changes: 'At least one change' });
    expect(refusal([{ op: 'upsert_product', product: { sku: 'P', name: 'P', fabric_sku: 'FAB-NONE', hardware_sku: 'FAB-BLACKOUT' } }])).toEqual({
      'changes.0.product.fabric_sku': 'Unknown SKU FAB-NONE',
      'changes.0.product.hardware_sku': 'SKU FAB-BLACKOUT is a fabric SKU, not hardware',
    });
    expect(refusal([{ op: 'upsert_sku', sku: { code: 'HW-ROLLER-STD', component: 'trim', description: 'moved', unit: 'each', unit_cost_cents: '1' } }])).toEqual({
      'changes.0.sku.component': expect.stringMatching(/used by active product ROLLER-SCREEN/),
    });
  });
});

describe('D21 compare_to', () => {
  it('lists field-level changes, a new entity with null before, settings compared by their text', () => {
    const next = applyChangeSet(BOOK, [
      { op: 'set_setting', field: 'tube_deduction_inches', value: '1.25' },
      { op: 'upsert_sku', sku: { code: 'FAB-NEW', component: 'fabric', description: 'New', unit: 'sq_ft', unit_cost_cents: '400', active: true } },
    ]);
    expect(compareRevisions(BOOK, next)).toEqual([
      { entity: 'setting', key: 'tube_deduction_inches', field: 'value', before: '1.125', after: '1.25' },
      { entity: 'sku', key: 'FAB-NEW', field: 'code', before: null, after: 'FAB-NEW' },
      { entity: 'sku', key: 'FAB-NEW', field: 'component', before: null, after: 'fabric' },
      { entity: 'sku', key: 'FAB-NEW', field: 'description', before: null, after: 'New' },
      { entity: 'sku', key: 'FAB-NEW', field: 'unit', before: null, after: 'sq_ft' },
      { entity: 'sku', key: 'FAB-NEW', field: 'unit_cost_cents', before: null, after: '400' },
      { entity: 'sku', key: 'FAB-NEW', field: 'active', before: null, after: true },
    ]);
    expect(compareRevisions(next, next)).toEqual([]);
  });
});

describe('D21 CSV rows', () => {
  const HEADER = ['code', 'component', 'description', 'unit', 'unit_cost_cents', 'active'];

  it('escapes every formula-leading cell on export (OWASP: = + - @ tab CR) and nothing else', () => {
    for (const lead of ['=', '+', '-', '@', '\t', '\r']) expect(escapeCell(`${lead}SUM(A1)`)).toBe(`'${lead}SUM(A1)`);
    expect(escapeCell('Blackout, 3%')).toBe('Blackout, 3%');
    const records = exportRecords({ ...BOOK, skus: [{ ...BOOK.skus[0]!, description: '@evil' }] });
    expect(records).toEqual([HEADER, ['FAB-SCREEN-3', 'fabric', "'@evil", 'sq_ft', '437.5', 'true']]);
  });

  it('reads the escaped form back as the text, and refuses a bare formula', () => {
    const plan = planImport(BOOK, [HEADER, ['FAB-SCREEN-3', 'fabric', "'=1+1", 'sq_ft', '437.5', 'true'], ['FAB-X', 'fabric', '+1', 'sq_ft', '1', 'true']]);
    expect(plan.results[0]).toEqual({ row: 2, code: 'FAB-SCREEN-3', result: 'updated' });
    expect(plan.results[1]).toMatchObject({ row: 3, result: 'refused', errors: { description: expect.stringMatching(/formula/) } });
    expect(plan.content).toBeNull();
  });

  it('one formula rule for a JSON change set and a CSV row: the same refusal in the same words, the same text kept from the apostrophe form', () => {
    const evil = "=cmd|' /C calc'!A0";
    for (const lead of ['=', '+', '-', '@', '\t', '\r']) {
      const text = `${lead}SUM(A1)`;
      const json = refusal([{ op: 'upsert_sku', sku: { code: 'TRIM-EVIL', component: 'trim', description: text, unit: 'each', unit_cost_cents: '100' } }]);
      const csv = planImport(BOOK, [HEADER, ['TRIM-EVIL', 'trim', text, 'each', '100', 'true']]);
      expect(csv.content).toBeNull();
      expect(csv.results[0]).toMatchObject({ result: 'refused' });
      expect(json).toEqual({ 'changes.0.sku.description': csv.results[0]!.errors!.description });
      expect(json['changes.0.sku.description']).toMatch(/formula; write it with a leading apostrophe/);
    }
    // Written with the apostrophe, both keep the text itself; the export escapes it again and it imports back unchanged.
    const fromJson = applyChangeSet(BOOK, [Change.parse({ op: 'upsert_sku', sku: { code: 'TRIM-EVIL', component: 'trim', description: `'${evil}`, unit: 'each', unit_cost_cents: '100' } })]);
    const fromCsv = planImport(BOOK, [HEADER, ['TRIM-EVIL', 'trim', `'${evil}`, 'each', '100', 'true']]);
    expect(fromJson.skus.find((s) => s.code === 'TRIM-EVIL')!.description).toBe(evil);
    expect(fromCsv.content).toEqual(fromJson);
    const exported = exportRecords(fromJson);
    expect(exported.find((r) => r[0] === 'TRIM-EVIL')).toEqual(['TRIM-EVIL', 'trim', `'${evil}`, 'each', '100', 'true']);
    expect(planImport(fromJson, exported).results.every((r) => r.result === 'unchanged')).toBe(true);
    // An apostrophe before anything else is text like any other.
    expect(applyChangeSet(BOOK, [Change.parse({ op: 'upsert_sku', sku: { code: 'TRIM-Q', component: 'trim', description: "'Quoted' trim", unit: 'each', unit_cost_cents: '1' } })]).skus.find((s) => s.code === 'TRIM-Q')!.description).toBe("'Quoted' trim");
  });

  it('refuses a missing, extra or reordered column, other encodings, and more than 5,000 rows', () => {
    expect(() => checkHeader(HEADER.slice(0, 5))).toThrow(/Missing column active/);
    expect(() => checkHeader([...HEADER, 'x'])).toThrow(/Unknown column x/);
    expect(() => checkHeader([...HEADER].reverse())).toThrow(/order/);
    expect(() => decodeCsvBytes(Uint8Array.from([0x63, 0xe9, 0x0a]))).toThrow(CsvRefused);
    expect(decodeCsvBytes(new TextEncoder().encode('écru'))).toBe('écru');
    const rows = Array.from({ length: MAX_CSV_ROWS + 1 }, (_, i) => [`T-${i}`, 'trim', 't', 'each', '1', 'true']);
    expect(() => planImport(BOOK, [HEADER, ...rows])).toThrow(/5001 rows/);
    expect(planImport(BOOK, [HEADER, ...rows.slice(1)]).results).toHaveLength(MAX_CSV_ROWS);
  });

  it('counts a row of the wrong length as that row refused', () => {
    expect(planImport(BOOK, [HEADER, ['A', 'fabric']]).results[0]).toMatchObject({ row: 2, result: 'refused', errors: { row: expect.stringMatching(/2 cells/) } });
  });
});

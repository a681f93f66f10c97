import { ChangeSetRefused, CODE_PATTERN, NON_NEGATIVE_DECIMAL, applyChangeSet, plainDecimal, skuValueComplaints, type Change } from './change-set';
import { SKU_COMPONENTS, SKU_UNITS, type PricebookContent, type PricebookSku } from './content';
import Decimal from 'decimal.js';
import { escapeCell, readFormulaSafeText } from './formula-text';

export { escapeCell } from './formula-text';

/**
 * D21's CSV import and export of a price book's SKUs, the rules without the parser: the caller
 * parses with the pinned CSV library (api/v1/pricebooks/csv.ts) and hands the records here.
 * A file is a list of SKU upserts: a row whose code the book lacks creates that SKU, one whose
 * values differ updates it, and SKUs the file does not name stay as they are. One revision for
 * the whole file, or nothing when any row is refused.
 */
export const CSV_COLUMNS = ['code', 'component', 'description', 'unit', 'unit_cost_cents', 'active'] as const;
export const MAX_CSV_ROWS = 5_000;

export type RowOutcome = 'created' | 'updated' | 'unchanged' | 'refused';
export interface RowResult {
  /** The record's line in the file, the header being 1 (what a spreadsheet shows). */
  row: number;
  code: string | null;
  result: RowOutcome;
  /** Why it was refused, by column. */
  errors?: Record<string, string>;
}

export class CsvRefused extends Error {
  constructor(readonly complaints: Record<string, string>) {
    super(Object.values(complaints).join('; '));
  }
}

/** UTF-8 only (with or without a BOM): any other encoding is refused rather than read as mojibake. */
export function decodeCsvBytes(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new CsvRefused({ file: 'The file is not UTF-8 text: save it as "CSV UTF-8" and send it again' });
  }
}

/** The header row must be exactly CSV_COLUMNS, in order. */
export function checkHeader(header: readonly string[] | undefined): void {
  if (!header) throw new CsvRefused({ file: `The file is empty: its first row must be ${CSV_COLUMNS.join(',')}` });
  const names = header.map((cell) => cell.trim());
  const missing = CSV_COLUMNS.filter((c) => !names.includes(c));
  const extra = names.filter((n) => !(CSV_COLUMNS as readonly string[]).includes(n));
  if (missing.length > 0) throw new CsvRefused({ header: `Missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: the header must be ${CSV_COLUMNS.join(',')}` });
  if (extra.length > 0) throw new CsvRefused({ header: `Unknown column${extra.length > 1 ? 's' : ''} ${extra.join(', ')}: the header must be ${CSV_COLUMNS.join(',')}` });
  if (names.join(',') !== CSV_COLUMNS.join(',')) throw new CsvRefused({ header: `The columns must be in the order ${CSV_COLUMNS.join(',')}` });
}

function readRow(cells: readonly string[], rowNumber: number): { sku?: PricebookSku; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  if (cells.length !== CSV_COLUMNS.length) {
    errors.row = `Row ${rowNumber} has ${cells.length} cells; every row has the ${CSV_COLUMNS.length} columns of the header`;
    return { errors };
  }
  const [code, component, rawDescription, unit, cost, active] = cells.map((c) => c.trim()) as [string, string, string, string, string, string];
  if (!CODE_PATTERN.test(code)) errors.code = 'A code of 1-64 letters, digits, ".", "_", "/" or "-", starting with a letter or digit';
  if (!(SKU_COMPONENTS as readonly string[]).includes(component)) errors.component = `Unknown component "${component}": one of ${SKU_COMPONENTS.join(', ')}`;
  // The untrimmed cell: a leading tab or carriage return is a formula start too (formula-text.ts).
  const read = readFormulaSafeText(cells[2]!);
  let description = rawDescription;
  if ('complaint' in read) errors.description = read.complaint;
  else if (read.text !== cells[2]) description = read.text;
  if (description.length < 1 || description.length > 500) errors.description ??= 'A description of 1-500 characters';
  if (!(SKU_UNITS as readonly string[]).includes(unit)) errors.unit = `Unknown unit "${unit}": one of ${SKU_UNITS.join(', ')}`;
  if (!NON_NEGATIVE_DECIMAL.test(cost)) errors.unit_cost_cents = `"${cost}" is not a non-negative decimal such as 437.5`;
  else Object.assign(errors, skuValueComplaints({ unit_cost_cents: cost }));
  const flag = active.toLowerCase();
  if (flag !== 'true' && flag !== 'false') errors.active = `"${active}" is not true or false`;
  if (Object.keys(errors).length > 0) return { errors };
  return {
    errors,
    sku: {
      code,
      component: component as PricebookSku['component'],
      description,
      unit: unit as PricebookSku['unit'],
      unit_cost_cents: plainDecimal(new Decimal(cost)),
      active: flag === 'true',
    },
  };
}

const sameSku = (a: PricebookSku, b: PricebookSku) =>
  a.component === b.component && a.description === b.description && a.unit === b.unit && new Decimal(a.unit_cost_cents).eq(b.unit_cost_cents) && a.active === b.active;

export interface ImportPlan {
  results: RowResult[];
  /** The content of the revision the file publishes; null when it changes nothing or a row is refused. */
  content: PricebookContent | null;
  refused: boolean;
}

/**
 * Reads the records (header first) against `base`: a result per row, and the new revision's
 * content when every row is acceptable. Rows that pass alone are still checked together
 * (a SKU an active product uses cannot be deactivated; a code twice in one file).
 */
export function planImport(base: PricebookContent, records: readonly (readonly string[])[]): ImportPlan {
  checkHeader(records[0]);
  const rows = records.slice(1);
  if (rows.length > MAX_CSV_ROWS) throw new CsvRefused({ file: `The file has ${rows.length} rows; at most ${MAX_CSV_ROWS} rows are imported at once` });
  const current = new Map(base.skus.map((s) => [s.code, s]));
  const firstRowOf = new Map<string, number>();
  const changes: Change[] = [];
  const changeRow: number[] = [];
  const results: RowResult[] = rows.map((cells, index) => {
    const row = index + 2;
    const read = readRow(cells, row);
    const code = read.sku?.code ?? (cells[0]?.trim() || null);
    if (!read.sku) return { row, code, result: 'refused', errors: read.errors };
    const earlier = firstRowOf.get(read.sku.code);
    if (earlier !== undefined) return { row, code, result: 'refused', errors: { code: `Code ${read.sku.code} is already on row ${earlier}` } };
    firstRowOf.set(read.sku.code, row);
    const before = current.get(read.sku.code);
    if (before && sameSku(before, read.sku)) return { row, code, result: 'unchanged' };
    // The change carries the description as a file writes it (apostrophe and all): applyChangeSet
    // reads it by the same rule as a JSON change set's.
    changes.push({ op: 'upsert_sku', sku: { ...read.sku, description: escapeCell(read.sku.description) } });
    changeRow.push(index);
    return { row, code, result: before ? 'updated' : 'created' };
  });
  let refused = results.some((r) => r.result === 'refused');
  let content: PricebookContent | null = null;
  if (!refused && changes.length > 0) {
    try {
      content = applyChangeSet(base, changes);
    } catch (error) {
      if (!(error instanceof ChangeSetRefused)) throw error;
      refused = true;
      for (const [path, why] of Object.entries(error.complaints)) {
        const [, index, , field] = path.split('.');
        const result = results[changeRow[Number(index)] ?? -1];
        if (!result) continue;
        result.result = 'refused';
        result.errors = { ...result.errors, [field ?? 'row']: why };
      }
    }
  }
  return { results, content: refused ? null : content, refused };
}

/** The records of a revision's SKUs (header first), every text cell escaped against formulas. */
export function exportRecords(content: PricebookContent): string[][] {
  return [
    [...CSV_COLUMNS],
    ...[...content.skus]
      .sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0))
      .map((s) => [escapeCell(s.code), s.component, escapeCell(s.description), s.unit, s.unit_cost_cents, String(s.active)]),
  ];
}

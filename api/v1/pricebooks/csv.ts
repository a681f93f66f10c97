import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { CsvRefused, MAX_CSV_ROWS, decodeCsvBytes } from '../../../domain/pricebook/csv-rows';

/**
 * D21's CSV files through csv-parse and csv-stringify (pinned): RFC 4180 quoting, commas and line
 * breaks inside quoted cells, CRLF or LF, a UTF-8 BOM. The rules of the rows are
 * domain/pricebook/csv-rows.ts.
 */
export function parseCsv(bytes: Buffer): string[][] {
  const text = decodeCsvBytes(bytes);
  try {
    return parse(text, {
      bom: true,
      // Rows of the wrong length are reported per row by the domain rules, not as a parse failure.
      relax_column_count: true,
      skip_empty_lines: true,
      // One more than the limit is enough to refuse the file.
      to_line: MAX_CSV_ROWS + 2,
    }) as string[][];
  } catch (error) {
    const where = (error as { lines?: number }).lines;
    throw new CsvRefused({ file: `The file is not valid CSV${where ? ` (near line ${where})` : ''}: ${(error as Error).message.replace(/^Invalid [^:]*: /, '')}` });
  }
}

/** A UTF-8 file with a BOM (so spreadsheets read it as UTF-8) and CRLF line ends, quoted where needed. */
export function formatCsv(records: readonly (readonly string[])[]): string {
  return stringify(records as string[][], { bom: true, record_delimiter: 'windows', quoted_match: /^\s|\s$/ });
}

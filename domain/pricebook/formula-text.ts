/**
 * OWASP's CSV injection rule for a price book's text (D21): a cell that begins with one of these
 * is a formula to a spreadsheet. The book's text reaches spreadsheets by its CSV export, whichever
 * way it came in, so the JSON change set and the CSV import take a description by the same rule:
 * text beginning with a formula character is refused unless written with a leading apostrophe
 * (a spreadsheet's own "this is text" mark), which is removed; the export writes the apostrophe
 * back, so an export imports back unchanged.
 */
export const FORMULA_START = /^[=+\-@\t\r]/;

/** A cell as written to a spreadsheet: formula-leading text with its apostrophe. */
export const escapeCell = (text: string) => (FORMULA_START.test(text) ? `'${text}` : text);

const characterName = (c: string) => (c === '\t' ? 'a tab' : c === '\r' ? 'a carriage return' : c);

/** The text a description stands for, or why it is refused (the same words for a CSV cell and a JSON field). */
export function readFormulaSafeText(raw: string): { text: string } | { complaint: string } {
  if (raw.startsWith("'") && FORMULA_START.test(raw.slice(1))) return { text: raw.slice(1) };
  if (FORMULA_START.test(raw)) {
    return { complaint: `Begins with "${characterName(raw[0]!)}", which a spreadsheet runs as a formula; write it with a leading apostrophe to keep it as text` };
  }
  return { text: raw };
}

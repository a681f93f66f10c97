import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The worked examples of docs/pricing.md as its tables state them, so a test checks the figures
 * the document shows and the document cannot drift from the code. This only reads: which cell
 * holds a figure and which figure (the bold one a row ends on); no rule of the pricing is here.
 */
const DOC = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'pricing.md');

/** The text of section `number` of docs/pricing.md: from its `## <number>.` heading to the next `## `. */
export function pricingSection(number: number): string {
  const text = readFileSync(DOC, 'utf8');
  const start = text.search(new RegExp(`^## ${number}\\. `, 'm'));
  if (start < 0) throw new Error(`docs/pricing.md has no section ${number}`);
  const next = text.slice(start + 1).search(/^## /m);
  return next < 0 ? text.slice(start) : text.slice(start, start + 1 + next);
}

/** From the paragraph that opens with `**<title>`, up to the next bold-led paragraph or heading. */
export function example(section: string, title: string): string {
  return block(section, `**${title}`);
}

/** From the text `opening` (a heading or a paragraph's first words) up to the next bold-led paragraph or heading. */
export function block(section: string, opening: string): string {
  const start = section.indexOf(opening);
  if (start < 0) throw new Error(`no "${opening}" in the section`);
  const rest = section.slice(start + opening.length);
  const end = rest.search(/\n\n(\*\*|#)/);
  return opening + (end < 0 ? rest : rest.slice(0, end));
}

export interface Table {
  /** Each row by its header's cell text; the separator row dropped. */
  rows: Record<string, string>[];
  /** The text after the table, up to the end of the block given. */
  after: string;
  /** The text before the table. */
  before: string;
}

/** The `index`th markdown table (from 0) of `text`. */
export function table(text: string, index = 0): Table {
  const lines = text.split('\n');
  const blocks: { from: number; to: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith('|')) continue;
    const from = i;
    while (i < lines.length && lines[i]!.startsWith('|')) i++;
    blocks.push({ from, to: i });
  }
  const block = blocks[index];
  if (!block) throw new Error(`no table ${index} in the text`);
  const cells = (line: string) => line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((cell) => cell.trim());
  const header = cells(lines[block.from]!);
  const rows = lines.slice(block.from + 2, block.to).map((line) => Object.fromEntries(cells(line).map((cell, i) => [header[i]!, cell])));
  return { rows, before: lines.slice(0, block.from).join('\n'), after: lines.slice(block.to).join('\n') };
}

/** Every bold figure of `text`, in order (`**117**`, `**327.30**`, `**"0.3500"**` as `0.3500`). */
export function boldFigures(text: string): string[] {
  return [...text.matchAll(/\*\*"?(-?\d+(?:\.\d+)?)"?\*\*/g)].map((m) => m[1]!);
}

/** The figure a cell arrives at: its last bold figure (`76 / 0.65 = 116.92… → **117**`), or null when it states none. */
export function statedFigure(cell: string): string | null {
  return boldFigures(cell).at(-1) ?? null;
}

/** `statedFigure` as a number of cents; throws when the cell states none. */
export function statedCents(cell: string): number {
  const figure = statedFigure(cell);
  if (figure === null || !/^-?\d+$/.test(figure)) throw new Error(`the cell "${cell}" states no whole cents`);
  return Number(figure);
}

/**
 * A completion invoice's worked example as its table states it: each priced row's amount (the
 * last column; a row without one is no line), then the subtotal, tax and total stated after it.
 */
export function exampleInvoice(section: number, title: string): { lines: number[]; subtotal: number; tax: number; total: number } {
  const t = table(example(pricingSection(section), title));
  const priceColumn = Object.keys(t.rows[0] ?? {}).at(-1);
  if (!priceColumn) throw new Error(`example "${title}": an empty table`);
  const lines = t.rows.map((row) => statedFigure(row[priceColumn]!)).filter((figure) => figure !== null).map(Number);
  const [subtotal, tax, total] = boldFigures(t.after).map(Number);
  if (subtotal === undefined || tax === undefined || total === undefined) throw new Error(`example "${title}": no subtotal, tax and total after its table`);
  return { lines, subtotal, tax, total };
}

import { formatCad, type Decision, type LineChoices } from '../../domain/quotes/customer-page';
import { inflateSync } from 'node:zlib';
import { taxLineLabel } from '../../domain/tax/quote-tax';
import { logoTypeOf } from '../../domain/organizations/logo';
import type { OpenQuote } from './page-service';

const isoDay = (date: Date) => date.toISOString().slice(0, 10);
const minute = (date: Date) => `${isoDay(date)} ${date.toISOString().slice(11, 16)} UTC`;

/** A line's choices, one per PDF line (short, so none wraps and each reads as one text run). */
const choiceLines = (choices: LineChoices) => [
  `Fabric: ${choices.fabric ?? 'not recorded'}`,
  `Hardware: ${choices.hardware ?? 'not recorded'}`,
  `Motor: ${choices.motor ?? 'none (manual)'}`,
  `Control side: ${choices.controlSide ?? 'not specified'}`,
  `Cassette: ${choices.cassette ?? 'none'}`,
];

/** The acceptance record as the PDF states it, once the customer decided. */
export function decisionRecord(decision: Decision): string[] {
  switch (decision.kind) {
    case 'accepted_by_customer':
      return [`Accepted by ${decision.name}`, `Accepted on ${minute(decision.at)}`];
    case 'declined_by_customer':
      return [`Declined by the customer on ${minute(decision.at)}`];
    case 'decided_by_office':
      return [];
  }
}

async function pdfDocument() {
  // PDFKit (about 9 MB resident once loaded) on the first PDF asked for, not in every API at start.
  const { default: PDFDocument } = await import('pdfkit');
  return PDFDocument;
}

/** A PNG's compressed pixel data: its IDAT chunks, in order. */
function pngData(png: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 8; at + 8 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (at + 12 + length > png.length) throw new Error('a PNG chunk runs past the end of the file');
    if (type === 'IDAT') parts.push(png.subarray(at + 8, at + 8 + length));
    if (type === 'IEND') break;
    at += 12 + length;
  }
  if (parts.length === 0) throw new Error('a PNG without pixel data');
  return Buffer.concat(parts);
}

/**
 * D24: whether PDFKit embeds these image bytes: a logo is embedded in a document of its own before
 * it is kept, so a quote's PDF never fails on it. Throws what PDFKit throws.
 */
export async function checkEmbeddable(bytes: Buffer, maxPixels: number): Promise<void> {
  // PDFKit copies an opaque PNG's compressed pixels into the PDF without reading them: they are
  // inflated here (bounded by the largest image allowed), so a damaged one is refused now.
  if (logoTypeOf(bytes) === 'image/png') inflateSync(pngData(bytes), { maxOutputLength: maxPixels * (maxPixels * 8 + 1) });
  const PDFDocument = await pdfDocument();
  const doc = new PDFDocument({ size: [200, 200], margin: 0 });
  const done = new Promise<void>((resolve, reject) => {
    doc.on('data', () => undefined);
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  doc.image(bytes, 0, 0, { fit: [200, 200] });
  doc.end();
  await done;
}

/**
 * D24: the PDF of the quote the page shows, the same figures (domain/quotes/customer-page.ts),
 * made by PDFKit (a maintained PDF writer: layout, text metrics and the standard fonts are its
 * business). Helvetica is one of the PDF standard fonts, so nothing is embedded or fetched but the
 * contractor's logo, from its workspace. It carries the contractor (logo, address, phone), the
 * issue date, the validity, each line with what was chosen, the terms and, once the customer
 * decided, their decision (for an acceptance, the typed name and the instant).
 */
export async function quotePdf(quote: OpenQuote, extras: { logo?: Buffer | undefined; decision?: Decision | null } = {}): Promise<Buffer> {
  const PDFDocument = await pdfDocument();
  // The document's properties name the quote and its total, as a viewer's title bar and a file
  // search show them without reading the pages.
  const doc = new PDFDocument({
    size: 'LETTER',
    margin: 54,
    info: {
      Title: `Quote ${quote.quoteNumber} from ${quote.contractor}`,
      Author: quote.contractor,
      Subject: `Total ${formatCad(quote.figures.totalCents)}, tax included; valid until ${isoDay(quote.validUntil)}`,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const left = doc.page.margins.left;
  const width = doc.page.width - doc.page.margins.left - doc.page.margins.right;
  const amountWidth = 110;
  const row = (label: string, amount: string, bold = false) => {
    const y = doc.y;
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(11);
    doc.text(label, left, y, { width: width - amountWidth - 10 });
    const after = doc.y;
    doc.text(amount, left + width - amountWidth, y, { width: amountWidth, align: 'right' });
    doc.y = Math.max(after, doc.y) + 4;
  };

  if (extras.logo) {
    const top = doc.y;
    doc.image(extras.logo, left, top, { fit: [160, 56] });
    doc.y = top + 62;
  }
  doc.font('Helvetica-Bold').fontSize(12).text(quote.contractor, left);
  doc.font('Helvetica').fontSize(10);
  for (const part of quote.contractorAddress?.split(/\r?\n/).filter((p) => p.trim() !== '') ?? []) doc.text(part.trim());
  if (quote.contractorPhone) doc.text(`Phone: ${quote.contractorPhone}`);
  doc.moveDown(0.5).font('Helvetica-Bold').fontSize(22).text(`Quote ${quote.quoteNumber}`);
  doc.font('Helvetica').fontSize(11).moveDown(0.3);
  if (quote.customerName) doc.text(`For ${quote.customerName}`);
  doc.text(`Issued ${isoDay(quote.issuedAt)}`);
  doc.text(`Valid until ${isoDay(quote.validUntil)}`);
  doc.moveDown(1);
  row('Description', 'Price', true);
  doc.moveTo(left, doc.y).lineTo(left + width, doc.y).stroke();
  doc.moveDown(0.4);
  for (const line of quote.figures.lines) {
    row(line.description, formatCad(line.amountCents));
    doc.font('Helvetica').fontSize(9).fillColor('#4a5360');
    for (const choice of choiceLines(line.choices)) doc.text(choice, left + 12, doc.y, { width: width - amountWidth - 22 });
    doc.fillColor('black');
    doc.y += 6;
  }
  doc.moveTo(left, doc.y).lineTo(left + width, doc.y).stroke();
  doc.moveDown(0.4);
  row('Subtotal', formatCad(quote.figures.subtotalCents));
  for (const line of quote.figures.tax.lines) row(taxLineLabel(line), formatCad(line.amount_cents));
  row('Total', formatCad(quote.figures.totalCents), true);

  const record = extras.decision ? decisionRecord(extras.decision) : [];
  if (record.length > 0) {
    doc.moveDown(1).font('Helvetica-Bold').fontSize(12).text(extras.decision?.kind === 'accepted_by_customer' ? 'Acceptance' : 'Decision', left);
    doc.font('Helvetica').fontSize(11);
    for (const part of record) doc.text(part, left);
  }
  doc.moveDown(1).font('Helvetica-Bold').fontSize(12).text('Terms', left);
  doc.font('Helvetica').fontSize(9).text(quote.terms, left, doc.y, { width });
  doc.end();
  return done;
}

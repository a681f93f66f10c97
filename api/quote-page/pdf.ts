import { formatCad } from '../../domain/quotes/customer-page';
import { taxLineLabel } from '../../domain/tax/quote-tax';
import type { OpenQuote } from './page-service';

/**
 * D24: the PDF of the quote the page shows, the same figures (domain/quotes/customer-page.ts),
 * made by PDFKit (a maintained PDF writer: layout, text metrics and the standard fonts are its
 * business). Helvetica is one of the PDF standard fonts, so nothing is embedded or fetched.
 */
export async function quotePdf(quote: OpenQuote): Promise<Buffer> {
  // PDFKit (about 9 MB resident once loaded) on the first PDF asked for, not in every API at start.
  const { default: PDFDocument } = await import('pdfkit');
  // The document's properties name the quote and its total, as a viewer's title bar and a file
  // search show them without reading the pages.
  const doc = new PDFDocument({
    size: 'LETTER',
    margin: 54,
    info: {
      Title: `Quote ${quote.quoteNumber} from ${quote.contractor}`,
      Author: quote.contractor,
      Subject: `Total ${formatCad(quote.figures.totalCents)}, tax included; valid until ${quote.validUntil.toISOString().slice(0, 10)}`,
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

  doc.font('Helvetica-Bold').fontSize(12).text(quote.contractor);
  doc.moveDown(0.3).fontSize(22).text(`Quote ${quote.quoteNumber}`);
  doc.font('Helvetica').fontSize(11).moveDown(0.3);
  if (quote.customerName) doc.text(`For ${quote.customerName}`);
  doc.text(`Valid until ${quote.validUntil.toISOString().slice(0, 10)}`);
  doc.moveDown(1);
  row('Description', 'Price', true);
  doc.moveTo(left, doc.y).lineTo(left + width, doc.y).stroke();
  doc.moveDown(0.4);
  for (const line of quote.figures.lines) row(line.description, formatCad(line.amountCents));
  doc.moveTo(left, doc.y).lineTo(left + width, doc.y).stroke();
  doc.moveDown(0.4);
  row('Subtotal', formatCad(quote.figures.subtotalCents));
  for (const line of quote.figures.tax.lines) row(taxLineLabel(line), formatCad(line.amount_cents));
  row('Total', formatCad(quote.figures.totalCents), true);
  doc.end();
  return done;
}

import type OAuthClient from 'intuit-oauth';
import type { FrozenQuote } from '../approval/frozen-quote';
import { taxCodeName } from './tax-code-name';

export interface AccountingInvoice {
  invoiceId: string;
  totalCents: number;
}

const MINOR_VERSION = '75';
/** QBO's default service item; looked up by name in each company, as the tax code is. */
const ITEM_NAME = 'Services';
const NET_DAYS = 14;

const dollars = (cents: number) => Math.round(cents) / 100;
const quoted = (value: string) => `'${value.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;

/**
 * The accounting leg (D7): the customer and the invoice in the tenant's QuickBooks company. Each
 * create carries a `requestid` derived from the quote and the step, so a retried or replayed call
 * makes nothing twice; a returning customer is found by its display name.
 */
export async function writeAccountingInvoice(client: OAuthClient, input: { realmId: string; baseUrl: string; quote: FrozenQuote }): Promise<AccountingInvoice> {
  const { quote } = input;
  const api = (path: string, params: Record<string, string> = {}) => {
    const url = new URL(`v3/company/${input.realmId}/${path}`, input.baseUrl.endsWith('/') ? input.baseUrl : `${input.baseUrl}/`);
    for (const [key, value] of Object.entries({ ...params, minorversion: MINOR_VERSION })) url.searchParams.set(key, value);
    return url.toString();
  };
  const query = async <T>(entity: string, where: string): Promise<T | undefined> => {
    const res = await client.makeApiCall({ url: api('query', { query: `select * from ${entity} where ${where}` }) });
    return ((res.json as { QueryResponse?: Record<string, T[]> }).QueryResponse?.[entity] ?? [])[0];
  };

  const displayName = quote.customer ? `${quote.customer.name}${quote.customer.email ? ` <${quote.customer.email}>` : ''}` : `Quote ${quote.quoteNumber}`;
  let customer = await query<{ Id: string }>('Customer', `DisplayName = ${quoted(displayName)}`);
  if (!customer) {
    const created = await client.makeApiCall({
      url: api('customer', { requestid: `quote-${quote.quoteId}-customer` }),
      method: 'POST',
      body: { DisplayName: displayName, ...(quote.customer?.email ? { PrimaryEmailAddr: { Address: quote.customer.email } } : {}) },
    });
    customer = (created.json as { Customer: { Id: string } }).Customer;
  }
  const item = await query<{ Id: string }>('Item', `Name = ${quoted(ITEM_NAME)}`);
  // D25: the code of the quote's region's tax lines.
  const taxCodeLabel = taxCodeName(quote.tax);
  const taxCode = await query<{ Id: string }>('TaxCode', `Name = ${quoted(taxCodeLabel)}`);
  if (!item || !taxCode) throw Object.assign(new Error(`the company has no item "${ITEM_NAME}" or tax code "${taxCodeLabel}"`), { code: 'SETUP' });

  const approved = new Date(quote.approvedAt);
  const due = new Date(approved.getTime() + NET_DAYS * 86_400_000);
  const created = await client.makeApiCall({
    url: api('invoice', { requestid: `quote-${quote.quoteId}-invoice` }),
    method: 'POST',
    body: {
      CustomerRef: { value: customer.Id },
      DocNumber: `Q-${quote.quoteNumber}`,
      TxnDate: approved.toISOString().slice(0, 10),
      DueDate: due.toISOString().slice(0, 10),
      PrivateNote: `Quote ${quote.quoteId}`,
      Line: quote.lines.map((line) => ({
        DetailType: 'SalesItemLineDetail',
        Amount: dollars(line.amountCents),
        Description: line.description,
        SalesItemLineDetail: { ItemRef: { value: item.Id }, Qty: 1, UnitPrice: dollars(line.amountCents), TaxCodeRef: { value: taxCode.Id } },
      })),
    },
  });
  const invoice = (created.json as { Invoice: { Id: string; TotalAmt: number } }).Invoice;
  return { invoiceId: invoice.Id, totalCents: Math.round(invoice.TotalAmt * 100) };
}

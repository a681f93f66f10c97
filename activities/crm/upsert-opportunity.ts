import type { Connection } from 'jsforce';
import type { FrozenQuote } from '../approval/frozen-quote';

/** The external-id field our opportunities are keyed on in the tenant's Salesforce org (D7). */
export const QUOTE_EXTERNAL_ID_FIELD = 'Quote_Id__c';

/**
 * The CRM leg (D7): one Opportunity per quote, upserted by its external id, so a retry or a
 * replay updates the same record instead of creating another.
 */
export async function upsertOpportunity(connection: Connection, quote: FrozenQuote): Promise<{ opportunityId: string }> {
  const record = {
    [QUOTE_EXTERNAL_ID_FIELD]: quote.quoteId,
    Name: `Quote ${quote.quoteNumber}${quote.customer ? ` – ${quote.customer.name}` : ''}`,
    StageName: 'Closed Won',
    CloseDate: quote.approvedAt.slice(0, 10),
    Amount: quote.subtotalCents / 100,
    Description: `Approved quote ${quote.quoteNumber}: ${quote.lines.length} line(s), subtotal ${(quote.subtotalCents / 100).toFixed(2)} CAD before tax.`,
  };
  const result = (await connection.sobject('Opportunity').upsert(record, QUOTE_EXTERNAL_ID_FIELD)) as { id?: string; success: boolean; errors?: unknown[] };
  if (!result.success) throw Object.assign(new Error(`upsert failed: ${JSON.stringify(result.errors ?? [])}`), { errorCode: 'UPSERT_FAILED' });
  if (result.id) return { opportunityId: result.id };
  // Older API versions answer an update with 204 and no id: read it back by the external id.
  const found = await connection.sobject('Opportunity').findOne({ [QUOTE_EXTERNAL_ID_FIELD]: quote.quoteId }, ['Id']);
  return { opportunityId: String((found as { Id: string }).Id) };
}

// Customer and Invoice create / read / (sparse) update, plus invoice delete and void, with the
// validations QBO applies: unknown properties, required fields, unique DisplayName, SyncToken
// concurrency, references to existing customers/items/tax codes, Amount = UnitPrice × Qty, and
// computed SubTotal, tax, TotalAmt, Balance, DocNumber and DueDate.
import Decimal from 'decimal.js';
import { QboFault, qboFaults } from './errors';
import type { QboEntity, QboRealm } from './realm';

type Json = Record<string, unknown>;

const READ_ONLY = new Set(['domain', 'MetaData', 'time', 'FullyQualifiedName', 'V4IDPseudonym', 'ClientEntityId']);

const CUSTOMER_FIELDS = new Set([
  'Id', 'SyncToken', 'sparse', 'DisplayName', 'Title', 'GivenName', 'MiddleName', 'FamilyName', 'Suffix', 'CompanyName',
  'PrintOnCheckName', 'PrimaryEmailAddr', 'PrimaryPhone', 'Mobile', 'Fax', 'AlternatePhone', 'WebAddr', 'BillAddr', 'ShipAddr',
  'Notes', 'Active', 'Taxable', 'PreferredDeliveryMethod', 'CurrencyRef', 'SalesTermRef', 'DefaultTaxCodeRef', 'ResaleNum',
  'BusinessNumber',
]);
const CUSTOMER_UNMODELED = new Set(['OpenBalanceDate', 'ParentRef', 'PaymentMethodRef', 'ARAccountRef', 'TaxExemptionReasonId', 'PrimaryTaxIdentifier', 'GSTIN', 'GSTRegistrationType', 'CustomerTypeRef']);

type Mode = 'create' | 'update';
// Computed or defaulted properties a client may echo back from a read (read-modify-write); QBO
// ignores them. Values the fake cannot honour (an opening balance, a sub-customer) are rejected.
const CUSTOMER_TOLERATED: Record<string, (v: unknown, mode: Mode) => boolean> = {
  Balance: (v, mode) => mode === 'update' || v === 0,
  BalanceWithJobs: (v, mode) => mode === 'update' || v === 0,
  Job: (v) => v === false,
  BillWithParent: (v) => v === false,
  IsProject: (v) => v === false,
};

const INVOICE_FIELDS = new Set([
  'Id', 'SyncToken', 'sparse', 'Line', 'CustomerRef', 'TxnDate', 'DueDate', 'DocNumber', 'PrivateNote', 'CustomerMemo', 'BillEmail',
  'BillEmailCc', 'BillEmailBcc', 'BillAddr', 'ShipAddr', 'SalesTermRef', 'TxnTaxDetail', 'EmailStatus', 'PrintStatus',
  'AllowOnlineCreditCardPayment', 'AllowOnlineACHPayment', 'GlobalTaxCalculation', 'CurrencyRef', 'CustomField', 'ClassRef',
  'DepartmentRef', 'TrackingNum', 'ShipDate', 'ShipMethodRef', 'ApplyTaxAfterDiscount',
]);
const INVOICE_UNMODELED = new Set(['DepositToAccountRef', 'ExchangeRate', 'RecurDataRef', 'TransactionLocationType', 'ProjectRef']);
const INVOICE_TOLERATED: Record<string, (v: unknown, mode: Mode) => boolean> = {
  TotalAmt: () => true,
  Balance: () => true,
  HomeTotalAmt: () => true,
  HomeBalance: () => true,
  AllowIPNPayment: () => true,
  AllowOnlinePayment: () => true,
  Deposit: (v) => v === 0,
  LinkedTxn: (v) => Array.isArray(v) && v.length === 0,
};

function checkProperties(
  entityClass: string,
  body: Json,
  known: Set<string>,
  tolerated: Record<string, (v: unknown, mode: Mode) => boolean>,
  unmodeled: Set<string>,
  mode: Mode,
): void {
  for (const [key, value] of Object.entries(body)) {
    if (known.has(key) || READ_ONLY.has(key)) continue;
    const tolerate = tolerated[key];
    if (tolerate?.(value, mode)) continue;
    if (tolerate || unmodeled.has(key)) {
      throw new QboFault(400, '2010', 'Request has invalid or unsupported property', `quickbooks-fake does not emulate ${entityClass}.${key}=${JSON.stringify(value)}; extend scripts/sandboxes/quickbooks to use it`);
    }
    throw qboFaults.unsupportedProperty(entityClass, key);
  }
}

/** The writable properties of a request body: everything else is computed or ignored by QBO. */
function writable(body: Json, known: Set<string>): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(body)) if (known.has(k) && k !== 'Id' && k !== 'SyncToken' && k !== 'sparse') out[k] = v;
  return out;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function refValue(v: unknown): string | undefined {
  if (v && typeof v === 'object' && 'value' in v) {
    const value = (v as { value: unknown }).value;
    return value === undefined || value === null ? undefined : String(value);
  }
  return undefined;
}

function money(v: Decimal.Value): number {
  return new Decimal(v).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toNumber();
}

function isDate(v: unknown): v is string {
  return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`));
}

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

function requireSyncToken(existing: QboEntity, body: Json): void {
  if (body['SyncToken'] === undefined) throw qboFaults.requiredParam('SyncToken');
  if (String(body['SyncToken']) !== existing['SyncToken']) throw qboFaults.staleObject();
}

function bump(existing: QboEntity, realm: QboRealm): void {
  existing['SyncToken'] = String(Number(existing['SyncToken']) + 1);
  const meta = existing['MetaData'] as Json;
  meta['LastUpdatedTime'] = realm.timestamp();
}

// ---- Customer ----

const NAME_PARTS = ['Title', 'GivenName', 'MiddleName', 'FamilyName', 'Suffix'] as const;

function displayNameOf(body: Json): string | undefined {
  const explicit = str(body['DisplayName'])?.trim();
  if (explicit) return explicit;
  const parts = NAME_PARTS.map((k) => str(body[k])?.trim()).filter((x): x is string => !!x);
  return parts.length > 0 ? parts.join(' ') : undefined;
}

function assertUniqueName(realm: QboRealm, name: string, exceptId?: string): void {
  const lower = name.toLowerCase();
  for (const c of realm.table('Customer').values()) {
    if (c['Id'] !== exceptId && String(c['DisplayName']).toLowerCase() === lower) throw qboFaults.duplicateName(c['Id'] as string);
  }
}

function applyCustomerFields(target: QboEntity, body: Json): void {
  Object.assign(target, writable(body, CUSTOMER_FIELDS));
  const name = target['DisplayName'] as string;
  target['FullyQualifiedName'] = name;
  target['PrintOnCheckName'] ??= name;
}

export function createCustomer(realm: QboRealm, body: Json): QboEntity {
  checkProperties('Customer', body, CUSTOMER_FIELDS, CUSTOMER_TOLERATED, CUSTOMER_UNMODELED, 'create');
  if (body['Id'] !== undefined) throw qboFaults.unsupportedOperation('Customer create with an Id (use update)');
  const name = displayNameOf(body);
  if (!name) throw qboFaults.requiredParam('DisplayName');
  if (name.length > 500) throw qboFaults.invalidValue('DisplayName', name);
  if (name.includes(':')) throw qboFaults.businessValidation('The name contains invalid characters (:).');
  assertUniqueName(realm, name);
  const email = (body['PrimaryEmailAddr'] as Json | undefined)?.['Address'];
  if (email !== undefined && (typeof email !== 'string' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email))) {
    throw new QboFault(400, '6000', 'A business validation error has occurred while processing your request', 'Business Validation Error: Email Address does not conform to the syntax rules of RFC 822.', 'ValidationFault', 'PrimaryEmailAddr');
  }
  const now = realm.timestamp();
  const c: QboEntity = {
    Taxable: true,
    Job: false,
    BillWithParent: false,
    Balance: 0,
    BalanceWithJobs: 0,
    CurrencyRef: { ...realm.currency },
    PreferredDeliveryMethod: 'Print',
    IsProject: false,
    domain: 'QBO',
    sparse: false,
    Id: realm.nextId('Customer'),
    SyncToken: '0',
    MetaData: realm.metaData(now),
    Active: true,
    DisplayName: name,
  };
  applyCustomerFields(c, { ...body, DisplayName: name });
  for (const addr of ['BillAddr', 'ShipAddr'] as const) {
    const a = c[addr] as Json | undefined;
    if (a && a['Id'] === undefined) a['Id'] = String(Number(c['Id']) * 10 + (addr === 'BillAddr' ? 1 : 2));
  }
  realm.table('Customer').set(c['Id'] as string, c);
  return c;
}

export function updateCustomer(realm: QboRealm, body: Json): QboEntity {
  checkProperties('Customer', body, CUSTOMER_FIELDS, CUSTOMER_TOLERATED, CUSTOMER_UNMODELED, 'update');
  const id = String(body['Id']);
  const existing = realm.table('Customer').get(id);
  if (!existing) throw qboFaults.objectNotFound('Customer', id);
  requireSyncToken(existing, body);
  const sparse = body['sparse'] === true;
  const next: Json = sparse ? { ...existing, ...body } : { ...body };
  const name = displayNameOf(next);
  if (!name) throw qboFaults.requiredParam('DisplayName');
  if (name !== existing['DisplayName']) assertUniqueName(realm, name, id);
  if (!sparse) {
    // A full update replaces every writable field; omitted ones are cleared.
    for (const k of CUSTOMER_FIELDS) if (!['Id', 'SyncToken', 'sparse'].includes(k)) delete existing[k];
    existing['Active'] = body['Active'] ?? true;
  }
  applyCustomerFields(existing, { ...body, DisplayName: name });
  bump(existing, realm);
  return existing;
}

// ---- Invoice ----

interface LineInput {
  Id?: unknown;
  LineNum?: unknown;
  Description?: unknown;
  Amount?: unknown;
  DetailType?: unknown;
  SalesItemLineDetail?: Json;
  SubTotalLineDetail?: unknown;
}

function buildLines(realm: QboRealm, lines: unknown): { out: Json[]; subtotal: Decimal; taxable: Map<string, Decimal> } {
  if (!Array.isArray(lines) || lines.length === 0) throw qboFaults.requiredParam('Line');
  const out: Json[] = [];
  let subtotal = new Decimal(0);
  const taxable = new Map<string, Decimal>();
  let n = 0;
  for (const raw of lines as LineInput[]) {
    const type = raw.DetailType;
    if (type === 'SubTotalLineDetail') continue; // computed by QBO, ignored on input
    if (type === 'DescriptionOnly') {
      n++;
      out.push({ Id: String(n), LineNum: n, Description: str(raw.Description) ?? '', DetailType: 'DescriptionOnly', DescriptionLineDetail: {} });
      continue;
    }
    if (type !== 'SalesItemLineDetail') {
      if (typeof type !== 'string') throw qboFaults.requiredParam('Line.DetailType');
      throw new QboFault(400, '2010', 'Request has invalid or unsupported property', `quickbooks-fake does not emulate Line.DetailType ${type}`);
    }
    const d = raw.SalesItemLineDetail ?? {};
    if (raw.Amount === undefined || raw.Amount === null || Number.isNaN(Number(raw.Amount))) throw qboFaults.requiredParam('Line.Amount');
    const amount = new Decimal(Number(raw.Amount));
    const qty = d['Qty'] === undefined ? undefined : new Decimal(Number(d['Qty']));
    let unit = d['UnitPrice'] === undefined ? undefined : new Decimal(Number(d['UnitPrice']));
    if (qty !== undefined && unit !== undefined && !new Decimal(money(qty.mul(unit))).eq(money(amount))) {
      throw qboFaults.amountMismatch(amount.toString());
    }
    if (qty !== undefined && unit === undefined && !qty.isZero()) unit = amount.div(qty);
    const itemId = refValue(d['ItemRef']) ?? '1';
    const item = realm.table('Item').get(itemId);
    if (!item || item['Active'] === false) throw qboFaults.invalidReference('Item', itemId);
    const detail: Json = { ...d, ItemRef: { value: itemId, name: item['Name'] } };
    if (unit !== undefined) detail['UnitPrice'] = unit.toNumber();
    if (qty !== undefined) detail['Qty'] = qty.toNumber();
    const taxCodeId = refValue(d['TaxCodeRef']);
    if (taxCodeId !== undefined) {
      if (!realm.taxRatesOf(taxCodeId)) throw qboFaults.invalidReference('TaxCode', taxCodeId);
      detail['TaxCodeRef'] = { value: taxCodeId };
      taxable.set(taxCodeId, (taxable.get(taxCodeId) ?? new Decimal(0)).add(amount));
    }
    n++;
    const line: Json = { Id: String(n), LineNum: n, Amount: money(amount), DetailType: 'SalesItemLineDetail', SalesItemLineDetail: detail };
    if (raw.Description !== undefined) line['Description'] = raw.Description;
    out.push(line);
    subtotal = subtotal.add(amount);
  }
  if (!out.some((l) => l['DetailType'] === 'SalesItemLineDetail')) throw qboFaults.businessValidation('You must add at least one line item with an amount.');
  out.push({ Amount: money(subtotal), DetailType: 'SubTotalLineDetail', SubTotalLineDetail: {} });
  return { out, subtotal, taxable };
}

function computeInvoice(realm: QboRealm, inv: QboEntity, body: Json): void {
  const customerId = refValue(inv['CustomerRef']);
  if (!customerId) throw qboFaults.requiredParam('CustomerRef');
  const customer = realm.table('Customer').get(customerId);
  if (!customer || customer['Active'] === false) throw qboFaults.invalidReference('Customer', customerId);
  inv['CustomerRef'] = { value: customerId, name: customer['DisplayName'] };
  const calc = str(inv['GlobalTaxCalculation']) ?? 'TaxExcluded';
  if (calc === 'TaxInclusive') throw new QboFault(400, '2010', 'Request has invalid or unsupported property', 'quickbooks-fake does not emulate GlobalTaxCalculation=TaxInclusive');
  inv['GlobalTaxCalculation'] = calc;
  const { out, subtotal, taxable } = buildLines(realm, inv['Line']);
  inv['Line'] = out;
  const taxLines: Json[] = [];
  let totalTax = new Decimal(0);
  if (calc !== 'NotApplicable') {
    for (const [codeId, base] of taxable) {
      // A tax group charges each of its rates on the same base, one TaxLine per rate.
      for (const { rate, rateId } of realm.taxRatesOf(codeId)!) {
        const amount = money(base.mul(rate).div(100));
        totalTax = totalTax.add(amount);
        taxLines.push({ Amount: amount, DetailType: 'TaxLineDetail', TaxLineDetail: { TaxRateRef: { value: rateId }, PercentBased: true, TaxPercent: rate, NetAmountTaxable: money(base) } });
      }
    }
  }
  const requested = (body['TxnTaxDetail'] as Json | undefined)?.['TotalTax'];
  if (requested !== undefined && requested !== null && money(Number(requested)) !== money(totalTax)) {
    throw new QboFault(400, '2010', 'Request has invalid or unsupported property', `quickbooks-fake does not emulate overriding TxnTaxDetail.TotalTax (sent ${String(requested)}, computed ${money(totalTax)})`);
  }
  const tax = totalTax;
  inv['TxnTaxDetail'] = { TotalTax: money(tax), TaxLine: taxLines };
  const total = money(subtotal.add(tax));
  inv['TotalAmt'] = total;
  inv['HomeTotalAmt'] = total;
  inv['Balance'] = total;
  if (inv['TxnDate'] === undefined) inv['TxnDate'] = realm.today();
  if (!isDate(inv['TxnDate'])) throw new QboFault(400, '2010', 'Request has invalid or unsupported property', `Property Name:TxnDate value ${String(inv['TxnDate'])} specified is unsupported or invalid`);
  if (inv['DueDate'] === undefined) {
    const termId = refValue(inv['SalesTermRef']) ?? refValue(customer['SalesTermRef']);
    const term = termId ? realm.table('Term').get(termId) : undefined;
    if (termId && !term) throw qboFaults.invalidReference('Term', termId);
    inv['DueDate'] = addDays(inv['TxnDate'], Number(term?.['DueDays'] ?? 0));
    if (term) inv['SalesTermRef'] = { value: termId, name: term['Name'] };
  } else if (!isDate(inv['DueDate'])) {
    throw new QboFault(400, '2010', 'Request has invalid or unsupported property', `Property Name:DueDate value ${String(inv['DueDate'])} specified is unsupported or invalid`);
  }
}

function adjustCustomerBalance(realm: QboRealm, customerId: string, delta: number): void {
  const c = realm.table('Customer').get(customerId);
  if (!c || delta === 0) return;
  c['Balance'] = money(new Decimal(c['Balance'] as number).add(delta));
  c['BalanceWithJobs'] = c['Balance'];
}

function invoiceSkeleton(realm: QboRealm, keep?: QboEntity): QboEntity {
  return {
    AllowIPNPayment: false,
    AllowOnlinePayment: false,
    AllowOnlineCreditCardPayment: false,
    AllowOnlineACHPayment: false,
    domain: 'QBO',
    sparse: false,
    Id: keep?.['Id'] ?? '',
    SyncToken: keep?.['SyncToken'] ?? '0',
    MetaData: keep?.['MetaData'] ?? realm.metaData(realm.timestamp()),
    CustomField: [],
    Deposit: 0,
    CurrencyRef: { ...realm.currency },
    LinkedTxn: [],
    ApplyTaxAfterDiscount: false,
    PrintStatus: 'NotSet',
    EmailStatus: 'NotSet',
    ...(keep?.['DocNumber'] !== undefined ? { DocNumber: keep['DocNumber'] } : {}),
  };
}

export function createInvoice(realm: QboRealm, body: Json): QboEntity {
  checkProperties('Invoice', body, INVOICE_FIELDS, INVOICE_TOLERATED, INVOICE_UNMODELED, 'create');
  if (body['Id'] !== undefined) throw qboFaults.unsupportedOperation('Invoice create with an Id (use update)');
  const inv = invoiceSkeleton(realm);
  Object.assign(inv, writable(body, INVOICE_FIELDS));
  computeInvoice(realm, inv, body);
  if (inv['BillEmail'] === undefined) {
    const email = realm.table('Customer').get(refValue(inv['CustomerRef']) as string)?.['PrimaryEmailAddr'];
    if (email) inv['BillEmail'] = { ...(email as Json) };
  }
  inv['Id'] = realm.nextId('Invoice');
  if (inv['DocNumber'] === undefined) inv['DocNumber'] = String(realm.nextDocNumber++);
  else if (String(inv['DocNumber']).length > 21) throw qboFaults.invalidValue('DocNumber', String(inv['DocNumber']));
  realm.table('Invoice').set(inv['Id'] as string, inv);
  adjustCustomerBalance(realm, refValue(inv['CustomerRef']) as string, inv['Balance'] as number);
  return inv;
}

export function readEntity(realm: QboRealm, name: 'Customer' | 'Invoice' | 'Payment' | 'Item' | 'TaxCode' | 'TaxRate' | 'Term' | 'CompanyInfo', id: string): QboEntity {
  const e = realm.table(name).get(id);
  if (!e) throw qboFaults.objectNotFound(name, id);
  return e;
}

export function updateInvoice(realm: QboRealm, body: Json): QboEntity {
  checkProperties('Invoice', body, INVOICE_FIELDS, INVOICE_TOLERATED, INVOICE_UNMODELED, 'update');
  const id = String(body['Id']);
  const existing = realm.table('Invoice').get(id);
  if (!existing) throw qboFaults.objectNotFound('Invoice', id);
  requireSyncToken(existing, body);
  const before = existing['Balance'] as number;
  const oldCustomer = refValue(existing['CustomerRef']) as string;
  // Sparse updates touch only the given fields; a full update replaces every writable field.
  const next: QboEntity = body['sparse'] === true ? structuredClone(existing) : invoiceSkeleton(realm, existing);
  Object.assign(next, writable(body, INVOICE_FIELDS));
  // A derived DueDate follows new terms or a new TxnDate unless one is given explicitly.
  if (body['DueDate'] === undefined && (body['SalesTermRef'] !== undefined || body['TxnDate'] !== undefined)) delete next['DueDate'];
  computeInvoice(realm, next, body);
  for (const k of Object.keys(existing)) if (!(k in next)) delete existing[k];
  Object.assign(existing, next);
  bump(existing, realm);
  adjustCustomerBalance(realm, oldCustomer, -before);
  adjustCustomerBalance(realm, refValue(existing['CustomerRef']) as string, existing['Balance'] as number);
  return existing;
}

export function deleteInvoice(realm: QboRealm, body: Json): QboEntity {
  const id = String(body['Id']);
  const existing = realm.table('Invoice').get(id);
  if (!existing) throw qboFaults.objectNotFound('Invoice', id);
  requireSyncToken(existing, body);
  realm.table('Invoice').delete(id);
  realm.deleted.add(id);
  adjustCustomerBalance(realm, refValue(existing['CustomerRef']) as string, -(existing['Balance'] as number));
  return { domain: 'QBO', status: 'Deleted', Id: id };
}

export function voidInvoice(realm: QboRealm, body: Json): QboEntity {
  const id = String(body['Id']);
  const existing = realm.table('Invoice').get(id);
  if (!existing) throw qboFaults.objectNotFound('Invoice', id);
  requireSyncToken(existing, body);
  const before = existing['Balance'] as number;
  for (const line of existing['Line'] as Json[]) {
    if (line['Amount'] !== undefined) line['Amount'] = 0;
    const d = line['SalesItemLineDetail'] as Json | undefined;
    if (d) {
      d['Qty'] = 0;
      d['UnitPrice'] = 0;
    }
  }
  existing['TxnTaxDetail'] = { TotalTax: 0, TaxLine: [] };
  existing['TotalAmt'] = 0;
  existing['HomeTotalAmt'] = 0;
  existing['Balance'] = 0;
  existing['PrivateNote'] = 'Voided';
  bump(existing, realm);
  adjustCustomerBalance(realm, refValue(existing['CustomerRef']) as string, -before);
  return existing;
}

// ---- Payment (D18: what a bookkeeper records when the customer pays) ----

/**
 * A received payment applied to invoices: `{CustomerRef, TotalAmt, Line: [{Amount, LinkedTxn:
 * [{TxnId, TxnType: 'Invoice'}]}]}`. Each linked invoice's Balance drops by its line's Amount
 * (never below zero: QBO refuses overpaying a line) and its MetaData.LastUpdatedTime moves, so
 * change data capture reports both the Payment and the Invoice.
 */
export function createPayment(realm: QboRealm, body: Json): QboEntity {
  const customerId = refValue(body['CustomerRef']);
  if (!customerId) throw qboFaults.requiredParam('CustomerRef');
  if (!realm.table('Customer').has(customerId)) throw qboFaults.invalidReference('Customer', customerId);
  const total = Number(body['TotalAmt']);
  if (!Number.isFinite(total) || total < 0) throw qboFaults.invalidValue('TotalAmt', String(body['TotalAmt']));
  const lines = Array.isArray(body['Line']) ? (body['Line'] as Json[]) : [];
  let applied = new Decimal(0);
  const changes: Array<{ invoice: QboEntity; amount: number }> = [];
  for (const line of lines) {
    const amount = Number(line['Amount']);
    const linked = Array.isArray(line['LinkedTxn']) ? (line['LinkedTxn'] as Json[]) : [];
    const target = linked.find((l) => l['TxnType'] === 'Invoice');
    if (!target || !Number.isFinite(amount) || amount <= 0) throw qboFaults.businessValidation('each payment line needs a positive Amount and a LinkedTxn of TxnType Invoice');
    const invoice = realm.table('Invoice').get(String(target['TxnId']));
    if (!invoice || realm.deleted.has(String(target['TxnId']))) throw qboFaults.invalidReference('Invoice', String(target['TxnId']));
    if (amount > (invoice['Balance'] as number)) throw qboFaults.businessValidation(`the amount applied (${amount}) is more than invoice ${String(invoice['Id'])}'s balance (${String(invoice['Balance'])})`);
    applied = applied.add(amount);
    changes.push({ invoice, amount });
  }
  if (applied.greaterThan(total)) throw qboFaults.businessValidation('the lines apply more than TotalAmt');
  const id = realm.nextId('Payment');
  const stamp = realm.timestamp();
  const payment: QboEntity = {
    domain: 'QBO',
    sparse: false,
    Id: id,
    SyncToken: '0',
    MetaData: realm.metaData(stamp),
    TxnDate: realm.today(),
    CurrencyRef: { ...realm.currency },
    CustomerRef: { value: customerId },
    TotalAmt: money(total),
    UnappliedAmt: money(new Decimal(total).sub(applied)),
    Line: lines.map((l) => structuredClone(l)),
  };
  for (const { invoice, amount } of changes) {
    invoice['Balance'] = money(new Decimal(invoice['Balance'] as number).sub(amount));
    (invoice['LinkedTxn'] as Json[]).push({ TxnId: id, TxnType: 'Payment' });
    bump(invoice, realm);
    adjustCustomerBalance(realm, customerId, -amount);
  }
  realm.table('Payment').set(id, payment);
  return payment;
}

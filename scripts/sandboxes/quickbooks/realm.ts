// One QuickBooks Online company (realm): its entities stored as the JSON QBO returns, per-entity
// id sequences, the next invoice DocNumber, and the responses remembered per `requestid`.
import type { FakeResponse } from '../core/http-fake';

export type QboEntity = Record<string, unknown>;
export type EntityName = 'Customer' | 'Invoice' | 'Payment' | 'Item' | 'TaxCode' | 'TaxRate' | 'Term' | 'CompanyInfo';

export interface TaxCodeSeed {
  id: string;
  name: string;
  /** Percent, e.g. 13 for Ontario HST. */
  rate: number;
  /**
   * A tax group (QBO `TaxGroup: true`): its sales rates, each charged on the line's amount on
   * its own (e.g. GST 5 and QST 9.975 for Quebec). `rate` is then their sum.
   */
  components?: readonly { name: string; rate: number }[];
}

/**
 * The sales tax codes a Canadian company has once its tax agencies are set up, named as
 * activities/accounting/tax-code-name.ts looks them up: one per region of D14's table.
 */
export const CANADIAN_TAX_CODES: readonly TaxCodeSeed[] = [
  { id: '2', name: 'HST ON', rate: 13 },
  { id: '3', name: 'Exempt', rate: 0 },
  { id: '4', name: 'GST', rate: 5 },
  { id: '5', name: 'HST NB', rate: 15 },
  { id: '6', name: 'HST NL', rate: 15 },
  { id: '7', name: 'HST NS', rate: 14 },
  { id: '8', name: 'HST PE', rate: 15 },
  { id: '9', name: 'GST/QST QC', rate: 14.975, components: [{ name: 'GST', rate: 5 }, { name: 'QST QC', rate: 9.975 }] },
  { id: '10', name: 'GST/PST BC', rate: 12, components: [{ name: 'GST', rate: 5 }, { name: 'PST BC', rate: 7 }] },
  { id: '11', name: 'GST/PST MB', rate: 12, components: [{ name: 'GST', rate: 5 }, { name: 'PST MB', rate: 7 }] },
  { id: '12', name: 'GST/PST SK', rate: 11, components: [{ name: 'GST', rate: 5 }, { name: 'PST SK', rate: 6 }] },
];

export interface RealmSeed {
  realmId: string;
  companyName?: string;
  country?: string;
  currency?: { value: string; name: string };
  /** Minutes east of UTC for timestamps and TxnDate; QBO reports times in the company's zone. */
  utcOffsetMinutes?: number;
  taxCodes?: readonly TaxCodeSeed[];
}

function pad(n: number, w = 2): string {
  return String(Math.abs(n)).padStart(w, '0');
}

export class QboRealm {
  readonly realmId: string;
  readonly companyName: string;
  readonly country: string;
  readonly currency: { value: string; name: string };
  readonly utcOffsetMinutes: number;
  readonly #entities = new Map<EntityName, Map<string, QboEntity>>();
  readonly #seq = new Map<EntityName, number>();
  nextDocNumber = 1001;
  readonly requestIds = new Map<string, FakeResponse>();
  /** Invoice ids deleted with operation=delete: reads then fail with Object Not Found. */
  readonly deleted = new Set<string>();
  readonly #now: () => number;

  constructor(seed: RealmSeed, now: () => number) {
    this.realmId = seed.realmId;
    this.companyName = seed.companyName ?? `Test Company ${seed.realmId}`;
    this.country = seed.country ?? 'CA';
    this.currency = seed.currency ?? { value: 'CAD', name: 'Canadian Dollar' };
    this.utcOffsetMinutes = seed.utcOffsetMinutes ?? -300;
    this.#now = now;
    this.#seedDefaults(seed.taxCodes ?? CANADIAN_TAX_CODES);
  }

  /** Local time with offset, e.g. 2024-05-01T10:33:39-05:00 (QBO's MetaData format). */
  timestamp(ms = this.#now(), withMillis = false): string {
    const local = new Date(ms + this.utcOffsetMinutes * 60_000);
    const iso = local.toISOString();
    const base = withMillis ? iso.slice(0, 23) : iso.slice(0, 19);
    const sign = this.utcOffsetMinutes >= 0 ? '+' : '-';
    return `${base}${sign}${pad(Math.trunc(this.utcOffsetMinutes / 60))}:${pad(this.utcOffsetMinutes % 60)}`;
  }

  /** The company's local calendar date, YYYY-MM-DD. */
  today(): string {
    return new Date(this.#now() + this.utcOffsetMinutes * 60_000).toISOString().slice(0, 10);
  }

  table(name: EntityName): Map<string, QboEntity> {
    let t = this.#entities.get(name);
    if (!t) {
      t = new Map();
      this.#entities.set(name, t);
    }
    return t;
  }

  nextId(name: EntityName): string {
    let n = this.#seq.get(name) ?? 0;
    const t = this.table(name);
    do n++;
    while (t.has(String(n)));
    this.#seq.set(name, n);
    return String(n);
  }

  metaData(created: string, updated = created): Record<string, string> {
    return { CreateTime: created, LastUpdatedTime: updated };
  }

  #put(name: EntityName, e: QboEntity): void {
    this.table(name).set(e['Id'] as string, e);
  }

  #seedDefaults(taxCodes: readonly TaxCodeSeed[]): void {
    const t = this.timestamp();
    const common = { domain: 'QBO', sparse: false, SyncToken: '0', MetaData: this.metaData(t) };
    this.#put('CompanyInfo', {
      ...common,
      Id: '1',
      CompanyName: this.companyName,
      LegalName: this.companyName,
      Country: this.country,
      CompanyAddr: { Id: '1', City: 'Toronto', Country: this.country, PostalCode: 'M5V 1A1' },
      Email: { Address: `owner@realm${this.realmId}.example` },
      SupportedLanguages: 'en',
    });
    this.#put('Item', {
      ...common,
      Id: '1',
      Name: 'Services',
      FullyQualifiedName: 'Services',
      Active: true,
      Type: 'Service',
      Taxable: false,
      UnitPrice: 0,
      IncomeAccountRef: { value: '1', name: 'Services' },
      TrackQtyOnHand: false,
    });
    this.#put('Item', { ...common, Id: '2', Name: 'Window Shades', FullyQualifiedName: 'Window Shades', Active: true, Type: 'NonInventory', Taxable: true, UnitPrice: 0, IncomeAccountRef: { value: '1', name: 'Services' }, TrackQtyOnHand: false });
    for (const [id, name, days] of [['1', 'Due on receipt', 0], ['2', 'Net 15', 15], ['3', 'Net 30', 30], ['4', 'Net 60', 60]] as const) {
      this.#put('Term', { ...common, Id: id, Name: name, Active: true, Type: 'STANDARD', DueDays: days, DiscountPercent: 0, DiscountDays: 0 });
    }
    for (const tc of taxCodes) {
      // A group's k-th rate is id + 100 (k + 1); a single rate is id + 100.
      const rates = (tc.components ?? [{ name: tc.name, rate: tc.rate }]).map((component, k) => ({ ...component, id: String(Number(tc.id) + 100 * (k + 1)) }));
      for (const rate of rates) {
        this.#put('TaxRate', { ...common, Id: rate.id, Name: rate.name, Description: rate.name, Active: true, RateValue: rate.rate, SpecialTaxType: rate.rate === 0 ? 'ZERO_RATE' : 'NONE', DisplayType: 'ReadOnly' });
      }
      this.#put('TaxCode', {
        ...common,
        Id: tc.id,
        Name: tc.name,
        Description: tc.name,
        Active: true,
        Hidden: false,
        Taxable: tc.rate > 0,
        TaxGroup: tc.components !== undefined,
        SalesTaxRateList: { TaxRateDetail: rates.map((rate) => ({ TaxRateRef: { value: rate.id, name: rate.name }, TaxTypeApplicable: 'TaxOnAmount', TaxOrder: 0 })) },
        PurchaseTaxRateList: { TaxRateDetail: [] },
      });
    }
  }

  /** The sales rates (percent) of a tax code, each charged on the taxable amount on its own; undefined for an unknown code. */
  taxRatesOf(taxCodeId: string): { rate: number; rateId: string }[] | undefined {
    const code = this.table('TaxCode').get(taxCodeId);
    if (!code) return undefined;
    const details = (code['SalesTaxRateList'] as { TaxRateDetail: Array<{ TaxRateRef: { value: string } }> }).TaxRateDetail;
    return details.map((detail) => ({ rate: Number(this.table('TaxRate').get(detail.TaxRateRef.value)?.['RateValue'] ?? 0), rateId: detail.TaxRateRef.value }));
  }
}

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
}

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
    this.#seedDefaults(seed.taxCodes ?? [{ id: '2', name: 'HST ON', rate: 13 }, { id: '3', name: 'Exempt', rate: 0 }]);
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
      const rateId = String(Number(tc.id) + 100);
      this.#put('TaxRate', { ...common, Id: rateId, Name: tc.name, Description: tc.name, Active: true, RateValue: tc.rate, SpecialTaxType: tc.rate === 0 ? 'ZERO_RATE' : 'NONE', DisplayType: 'ReadOnly' });
      this.#put('TaxCode', {
        ...common,
        Id: tc.id,
        Name: tc.name,
        Description: tc.name,
        Active: true,
        Hidden: false,
        Taxable: tc.rate > 0,
        TaxGroup: false,
        SalesTaxRateList: { TaxRateDetail: [{ TaxRateRef: { value: rateId, name: tc.name }, TaxTypeApplicable: 'TaxOnAmount', TaxOrder: 0 }] },
        PurchaseTaxRateList: { TaxRateDetail: [] },
      });
    }
  }

  /** Tax percent of a tax code, through its first sales rate. */
  taxRateOf(taxCodeId: string): { rate: number; rateId: string } | undefined {
    const code = this.table('TaxCode').get(taxCodeId);
    if (!code) return undefined;
    const detail = (code['SalesTaxRateList'] as { TaxRateDetail: Array<{ TaxRateRef: { value: string } }> }).TaxRateDetail[0];
    if (!detail) return { rate: 0, rateId: '' };
    const rate = this.table('TaxRate').get(detail.TaxRateRef.value);
    return { rate: Number(rate?.['RateValue'] ?? 0), rateId: detail.TaxRateRef.value };
  }
}

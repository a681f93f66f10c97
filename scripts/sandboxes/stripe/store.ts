// In-memory state of one Stripe account (one secret key). Records hold what the fake needs; the
// render functions elsewhere turn them into API objects at response time, so a retrieve always
// reflects the current state while an idempotent replay returns the original bytes.
import { createHash } from 'node:crypto';
import { randomAlnum } from '../core/random';
import type { FakeResponse } from '../core/http-fake';

export type Metadata = Record<string, string>;

export interface AddressRec {
  city: string | null;
  country: string | null;
  line1: string | null;
  line2: string | null;
  postal_code: string | null;
  state: string | null;
}

export interface SearchableCustomer {
  email: string | null;
  name: string | null;
  phone: string | null;
  metadata: Metadata;
  created: number;
}

export interface CustomerRec {
  id: string;
  seq: number;
  created: number;
  email: string | null;
  name: string | null;
  phone: string | null;
  description: string | null;
  address: AddressRec | null;
  metadata: Metadata;
  currency: string | null;
  invoicePrefix: string;
  nextInvoiceSequence: number;
  preferredLocales: string[];
  deleted: boolean;
  /** Search index versions: Stripe search is eventually consistent, so each write becomes visible later. */
  searchVersions: Array<{ visibleAt: number; doc: SearchableCustomer | null }>;
}

export interface PriceRec {
  id: string;
  created: number;
  currency: string;
  product: string;
  unitAmount: number | null;
  unitAmountDecimal: string;
  taxBehavior: string | null;
}

export interface ProductRec {
  id: string;
  created: number;
  name: string;
  description: string | null;
  metadata: Metadata;
}

export interface InvoiceItemRec {
  id: string;
  seq: number;
  created: number;
  customer: string;
  amount: number;
  currency: string;
  description: string | null;
  invoice: string | null;
  metadata: Metadata;
  quantity: number;
  unitAmountDecimal: string;
  price: string;
  product: string;
  period: { start: number; end: number };
  discountable: boolean;
  taxBehavior: string | null;
  /** The invoice line id this item renders as once attached. */
  lineId: string;
}

export type InvoiceStatus = 'draft' | 'open' | 'paid' | 'void' | 'uncollectible';

export interface InvoiceRec {
  id: string;
  seq: number;
  created: number;
  customer: string;
  currency: string;
  collectionMethod: 'charge_automatically' | 'send_invoice';
  daysUntilDue: number | null;
  dueDate: number | null;
  autoAdvance: boolean;
  status: InvoiceStatus;
  number: string | null;
  description: string | null;
  footer: string | null;
  statementDescriptor: string | null;
  metadata: Metadata;
  customFields: Array<{ name: string; value: string }> | null;
  items: string[];
  finalizedAt: number | null;
  paidAt: number | null;
  voidedAt: number | null;
  markedUncollectibleAt: number | null;
  paidOutOfBand: boolean;
  amountPaid: number;
  /** What credit notes took off: before payment (lowering amount_due) and after it. */
  prePaymentCreditNotes: number;
  postPaymentCreditNotes: number;
  creditNotes: number;
  hostedToken: string | null;
  /** Customer fields are frozen onto the invoice at finalization, as Stripe does. */
  customerSnapshot: { email: string | null; name: string | null; phone: string | null; address: AddressRec | null } | null;
  sentAt: number | null;
}

export interface SessionLineRec {
  id: string;
  price: string;
  quantity: number;
  description: string;
  amount: number;
}

export interface CheckoutSessionRec {
  id: string;
  seq: number;
  created: number;
  expiresAt: number;
  mode: 'payment' | 'setup' | 'subscription';
  status: 'open' | 'complete' | 'expired';
  paymentStatus: 'paid' | 'unpaid' | 'no_payment_required';
  currency: string;
  customer: string | null;
  customerEmail: string | null;
  clientReferenceId: string | null;
  successUrl: string | null;
  cancelUrl: string | null;
  metadata: Metadata;
  lines: SessionLineRec[];
  paymentIntent: string | null;
  paymentIntentData: { description: string | null; metadata: Metadata } | null;
  invoiceCreation: boolean;
  locale: string | null;
  completedEmail: string | null;
}

export interface CreditNoteLineRec {
  id: string;
  description: string;
  quantity: number;
  unitAmount: number;
  amount: number;
}

export interface CreditNoteRec {
  id: string;
  seq: number;
  created: number;
  invoice: string;
  customer: string;
  currency: string;
  number: string;
  lines: CreditNoteLineRec[];
  total: number;
  prePaymentAmount: number;
  postPaymentAmount: number;
  outOfBandAmount: number;
  memo: string | null;
  reason: string | null;
  metadata: Metadata;
}

export interface StoredIdempotent {
  method: string;
  path: string;
  fingerprint: string;
  response: FakeResponse;
  requestId: string;
  storedAt: number;
}

export interface EventRec {
  id: string;
  seq: number;
  created: number;
  type: string;
  object: unknown;
  previousAttributes: Record<string, unknown> | undefined;
  requestId: string | null;
  idempotencyKey: string | null;
}

export class StripeAccount {
  readonly id: string;
  readonly customers = new Map<string, CustomerRec>();
  readonly prices = new Map<string, PriceRec>();
  readonly products = new Map<string, ProductRec>();
  readonly invoiceItems = new Map<string, InvoiceItemRec>();
  readonly invoices = new Map<string, InvoiceRec>();
  readonly sessions = new Map<string, CheckoutSessionRec>();
  readonly creditNotes = new Map<string, CreditNoteRec>();
  readonly idempotency = new Map<string, StoredIdempotent>();
  readonly events: EventRec[] = [];
  #seq = 0;

  constructor(apiKey: string) {
    // Stable per key, so a test can predict it; real account ids are 16 chars after `acct_`.
    this.id = `acct_${createHash('sha256').update(apiKey).digest('hex').slice(0, 16).toUpperCase()}`;
  }

  nextSeq(): number {
    return ++this.#seq;
  }

  /** Object ids in Stripe's style: `cus_` + 14 chars for customers, 24 chars for most others. */
  newId(prefix: string, length = 24): string {
    return `${prefix}_${randomAlnum(length)}`;
  }
}

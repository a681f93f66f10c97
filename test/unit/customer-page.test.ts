import { describe, expect, it } from '@jest/globals';
import { AcceptForm, customerFigures, decisionOf, DeclineForm, formatCad, lineChoicesText, linkState, sendMove, validUntil } from '../../domain/quotes/customer-page';
import { quoteTax } from '../../domain/tax/quote-tax';
import { QUOTE_STATUSES } from '../../domain/quotes/quote-status';

/** D24's rules alone: what a link opens, what a send does, what a page says, what a form takes. */
describe('D24: sendMove', () => {
  it('sends a DRAFT the first time, a SENT quote again (a new link), and nothing else', () => {
    expect(QUOTE_STATUSES.map((status) => [status, sendMove(status)])).toEqual([
      ['DRAFT', 'first'],
      ['SENT', 'again'],
      ['APPROVED', null],
      ['REJECTED', null],
      ['EXPIRED', null],
    ]);
  });
});

describe('D24: linkState', () => {
  const now = new Date('2026-11-26T12:00:00.000Z');
  const live = { expiresAt: new Date('2026-12-01T00:00:00.000Z'), voidedAt: null };
  it('opens a SENT quote until its validity ends (D3), and never once voided by a later send', () => {
    expect(linkState(live, { status: 'SENT', decidedByCustomer: false }, now)).toBe('open');
    expect(linkState({ ...live, expiresAt: now }, { status: 'SENT', decidedByCustomer: false }, now)).toBe('gone');
    expect(linkState({ ...live, voidedAt: now }, { status: 'SENT', decidedByCustomer: false }, now)).toBe('gone');
  });
  it("shows the customer's own decision, and nothing of a quote the office decided, expired or never sent", () => {
    for (const status of ['APPROVED', 'REJECTED'] as const) {
      expect(linkState(live, { status, decidedByCustomer: true }, now)).toBe('decided');
      expect(linkState(live, { status, decidedByCustomer: false }, now)).toBe('gone');
      expect(linkState({ ...live, voidedAt: now }, { status, decidedByCustomer: true }, now)).toBe('gone');
    }
    expect(linkState(live, { status: 'EXPIRED', decidedByCustomer: false }, now)).toBe('gone');
    expect(linkState(live, { status: 'DRAFT', decidedByCustomer: false }, now)).toBe('gone');
  });
  it("keeps the customer's decided quote readable past its validity, until the validity plus 90 days, then the neutral page", () => {
    const day = 86_400_000;
    for (const status of ['APPROVED', 'REJECTED'] as const) {
      expect(linkState(live, { status, decidedByCustomer: true }, new Date(live.expiresAt.getTime() + day))).toBe('decided');
      expect(linkState(live, { status, decidedByCustomer: true }, new Date(live.expiresAt.getTime() + 90 * day - 1))).toBe('decided');
      expect(linkState(live, { status, decidedByCustomer: true }, new Date(live.expiresAt.getTime() + 90 * day))).toBe('gone');
    }
  });
  it('expires with the tenant validity from the quote creation', () => {
    expect(validUntil(new Date('2026-11-01T10:00:00.000Z'), 30).toISOString()).toBe('2026-12-01T10:00:00.000Z');
  });
});

describe('D24: decisionOf', () => {
  const at = new Date('2026-11-20T09:00:00.000Z');
  it('tells the customer what happened', () => {
    expect(decisionOf({ status: 'APPROVED', acceptance: { name: 'Morgan', at }, declinedByCustomerAt: null })).toEqual({ kind: 'accepted_by_customer', name: 'Morgan', at });
    expect(decisionOf({ status: 'REJECTED', acceptance: null, declinedByCustomerAt: at })).toEqual({ kind: 'declined_by_customer', at });
    expect(decisionOf({ status: 'APPROVED', acceptance: null, declinedByCustomerAt: null })).toEqual({ kind: 'decided_by_office', status: 'APPROVED' });
    expect(decisionOf({ status: 'REJECTED', acceptance: null, declinedByCustomerAt: null })).toEqual({ kind: 'decided_by_office', status: 'REJECTED' });
    expect(decisionOf({ status: 'SENT', acceptance: null, declinedByCustomerAt: null })).toBeNull();
  });
});

describe('D24: the forms', () => {
  const csrf = 'token';
  it('a name of 1-200 characters after trimming, storable text only', () => {
    expect(AcceptForm.parse({ csrf, name: '  Morgan Lee ' }).name).toBe('Morgan Lee');
    expect(AcceptForm.safeParse({ csrf, name: 'n'.repeat(200) }).success).toBe(true);
    for (const name of ['', '   ', 'n'.repeat(201), 'a\u0000b', '\ud800x']) expect(AcceptForm.safeParse({ csrf, name }).success).toBe(false);
    expect(AcceptForm.safeParse({ name: 'Morgan' }).success).toBe(false);
    expect(AcceptForm.safeParse({ csrf, name: 'Morgan', extra: '1' }).success).toBe(false);
  });
  it('an optional reason up to 2,000 characters; blank is no reason', () => {
    expect(DeclineForm.parse({ csrf }).reason).toBeNull();
    expect(DeclineForm.parse({ csrf, reason: '   ' }).reason).toBeNull();
    expect(DeclineForm.parse({ csrf, reason: ' Too dear ' }).reason).toBe('Too dear');
    expect(DeclineForm.safeParse({ csrf, reason: 'r'.repeat(2000) }).success).toBe(true);
    for (const reason of ['r'.repeat(2001), 'no\u0000']) expect(DeclineForm.safeParse({ csrf, reason }).success).toBe(false);
  });
});

describe('D24 with D25: the figures the customer sees', () => {
  it("are the lines' prices, their sum, the region's tax lines on it, and the total", () => {
    const lines = [
      { reference: 'Kitchen', quantity: 1, width_inches: 30, drop_inches: 40, price_cents: 10_001 },
      { reference: null, quantity: 2, width_inches: 24.5, drop_inches: 36, price_cents: 20_050 },
    ];
    for (const region of [null, 'CA-QC', 'CA-BC', 'CA-AB']) {
      const figures = customerFigures(lines, region);
      expect(figures.lines.map(({ description, amountCents }) => ({ description, amountCents }))).toEqual([
        { description: 'Kitchen: 1 × 30" × 40" roller shade', amountCents: 10_001 },
        { description: 'Line 2: 2 × 24.5" × 36" roller shade', amountCents: 20_050 },
      ]);
      expect(figures.subtotalCents).toBe(30_051);
      expect(figures.tax).toEqual(quoteTax(region, 30_051));
      expect(figures.totalCents).toBe(30_051 + figures.tax.total_cents);
    }
  });
  it("name each line's fabric, hardware, motor, control side and cassette from its priced components", () => {
    const component = (kind: string, sku: string, description: string) => ({ component: kind, sku_code: sku, description });
    const motorised = {
      reference: 'Den', quantity: 1, width_inches: 30, drop_inches: 40, price_cents: 10_001,
      components: [component('fabric', 'FAB-SCREEN-3', 'Solar screen 3%'), component('hardware', 'HW-ROLLER-STD', 'Standard roller'), component('motor', 'MTR-BATTERY', 'Battery motor'), component('trim', 'TRIM-CASSETTE', 'Aluminium cassette valance'), component('labour', 'STANDARD', 'Installation')],
    };
    const manual = { ...motorised, components: motorised.components.filter((c) => c.component !== 'motor' && c.component !== 'trim') };
    const figures = customerFigures([motorised, manual], null, ['left']);
    expect(figures.lines.map((line) => line.choices)).toEqual([
      { fabric: 'Solar screen 3%', hardware: 'Standard roller', motor: 'Battery motor', controlSide: 'left', cassette: 'Aluminium cassette valance' },
      { fabric: 'Solar screen 3%', hardware: 'Standard roller', motor: null, controlSide: null, cassette: null },
    ]);
    expect(lineChoicesText(figures.lines[1]!.choices)).toBe('Fabric: Solar screen 3%; Hardware: Standard roller; Motor: none (manual); Control side: not specified; Cassette: none');
  });
  it('formats Canadian dollars by integers', () => {
    expect([0, 5, 99, 100, 123_456_789, -1_050].map(formatCad)).toEqual(['$0.00', '$0.05', '$0.99', '$1.00', '$1,234,567.89', '-$10.50']);
  });
});

import { describe, expect, it } from '@jest/globals';
import { change20260701 } from '../../domain/versions/changes/2026-07-01';
import { change20260415 } from '../../domain/versions/changes/2026-04-15';
import { change20260120 } from '../../domain/versions/changes/2026-01-20';
import { checkVersion, CURRENT_VERSION, eventPayloadFor, RELEASES, shapeFor, supportedUntil } from '../../domain/versions/versions';
import { V1_QUOTE_EXAMPLE } from '../../api/v1/quotes/examples';
import { V1Quote } from '../../api/v1/quotes/schemas';

// D16: each version-change module turns the current shape into the one before it.
const quote = V1Quote.parse(V1_QUOTE_EXAMPLE);
const quoteResponse = { kind: 'response', route: '/v1/quotes' } as const;

describe('version-change modules (D16)', () => {
  it('2026-07-01: a line’s scalar deduction was the object of the three cut deductions', () => {
    const line = quote.lines[0]!;
    expect(line.deduction).toBe(1.125);
    const old = change20260701.transform(quoteResponse, quote) as typeof quote & { lines: { deduction: unknown }[] };
    expect(old.lines[0]!.deduction).toEqual({ tubeIn: 1.125, hembarIn: 1.375, fabricIn: 1.5 });
    expect({ ...old, lines: old.lines.map(({ deduction: _d, ...rest }) => rest) }).toEqual({ ...quote, lines: quote.lines.map(({ deduction: _d, ...rest }) => rest) });
    expect(quote.lines[0]!.deduction).toBe(1.125); // the input is left as it was
    // Other answers and events are not touched.
    expect(change20260701.transform({ kind: 'response', route: '/api/v1/quotes/:id' }, quote)).toBe(quote);
    expect(change20260701.transform({ kind: 'event', event: 'quote.created' }, quote)).toBe(quote);
  });

  it('2026-04-15: quote responses and quote.created had no pricebookRevision', () => {
    const { pricebookRevision: _p, ...expected } = quote;
    for (const route of ['/v1/quotes', '/v1/quotes/:id', '/v1/quotes/:id/revisions']) {
      expect(change20260415.transform({ kind: 'response', route }, quote)).toEqual(expected);
    }
    const event = { id: quote.id, reference: quote.reference, revision: 1, totals: quote.totals, pricebookRevision: quote.pricebookRevision };
    expect(change20260415.transform({ kind: 'event', event: 'quote.created' }, event)).toEqual({ id: quote.id, reference: quote.reference, revision: 1, totals: quote.totals });
    expect(change20260415.transform({ kind: 'event', event: 'invoice.generated' }, event)).toBe(event);
    expect(change20260415.transform({ kind: 'response', route: '/v1/products' }, quote)).toBe(quote);
  });

  it('2026-01-20: dispatch payloads named the technician technicianId; invoice.generated had no partsConsumed', () => {
    const dispatch = { id: 'r-1', date: '2026-12-03', assigneeId: 'u-7', stops: [], previousAttributes: { assigneeId: 'u-3', stops: [] } };
    expect(change20260120.transform({ kind: 'event', event: 'dispatch.updated' }, dispatch)).toEqual({
      id: 'r-1', date: '2026-12-03', technicianId: 'u-7', stops: [], previousAttributes: { technicianId: 'u-3', stops: [] },
    });
    const invoice = { id: 'in_1', quoteId: 'q', partsConsumed: [{ sku: 'HW-ROLLER-STD', quantity: 1, vanId: 'v1' }], erpSync: { target: 'accounting', status: 'succeeded' } };
    expect(change20260120.transform({ kind: 'event', event: 'invoice.generated' }, invoice)).toEqual({ id: 'in_1', quoteId: 'q', erpSync: { target: 'accounting', status: 'succeeded' } });
    expect(change20260120.transform(quoteResponse, quote)).toBe(quote);
  });

  it('the chain applies every module newer than the version, newest first', () => {
    const at = (version: string) => shapeFor(version, quoteResponse, quote) as Record<string, unknown> & { lines: { deduction: unknown }[] };
    expect(at('2026-07-01')).toBe(quote);
    expect(at('2026-04-15')).toMatchObject({ pricebookRevision: quote.pricebookRevision, lines: [{ deduction: { tubeIn: 1.125 } }, {}] });
    expect('pricebookRevision' in at('2026-01-20')).toBe(false);
    expect(at('2026-01-20').lines[0]!.deduction).toEqual({ tubeIn: 1.125, hembarIn: 1.375, fabricIn: 1.5 });
    expect(at('2025-10-08')).toEqual(at('2026-01-20'));
  });

  it('an event no change touches keeps its exact bytes', () => {
    const stored = '{"event":"work_order.dispatched","id":"e","organization_id":"o","created_at":"t","data":{"work_order_id":"w"}}';
    expect(eventPayloadFor('2026-01-20', stored)).toBe(stored);
    expect(eventPayloadFor(null, stored)).toBe(stored);
    const created = JSON.stringify({ event: 'quote.created', id: 'e', organization_id: 'o', created_at: 't', data: { id: 'q', pricebookRevision: 'r' } });
    expect(JSON.parse(eventPayloadFor('2026-01-20', created))).toEqual({ event: 'quote.created', id: 'e', organization_id: 'o', created_at: 't', data: { id: 'q' } });
    expect(eventPayloadFor(CURRENT_VERSION, created)).toBe(created);
  });
});

describe('the versions (D16, document 000 section 9)', () => {
  it('lists the changelog newest first, current 2026-07-01, each supported twelve months after the next release', () => {
    expect(RELEASES.map((r) => r.version)).toEqual(['2026-07-01', '2026-04-15', '2026-01-20', '2025-10-08', '2025-06-03']);
    expect(CURRENT_VERSION).toBe('2026-07-01');
    expect(RELEASES.map((r) => supportedUntil(r.version))).toEqual([null, '2027-07-01', '2027-04-15', '2027-01-20', '2026-10-08']);
    // A version is retired only after its supported-until date.
    for (const release of RELEASES) if (release.retiredOn) expect(release.retiredOn > supportedUntil(release.version)!).toBe(true);
    // Every module is the change of its own release.
    for (const release of RELEASES) if (release.module) expect(release.module.version).toBe(release.version);
  });

  it.each([
    ['2026-07-01', true],
    ['2026-04-15', true],
    ['2026-01-20', true],
    ['2025-10-08', true],
    ['2025-06-03', false], // retired on 2026-10-09
    ['2026-05-05', false], // never released
    ['2027-01-01', false], // the future
    ['2026-02-30', false], // not a date
    ['20260701', false],
    ['latest', false],
    ['', false],
  ])('Service-Version %p is answered: %p', (version, ok) => {
    const verdict = checkVersion(version, new Date('2026-11-23T12:00:00Z'));
    expect(verdict.ok).toBe(ok);
    if (!verdict.ok) expect(verdict.reason).toMatch(/Service-Version/);
  });

  it('a retired version was answered until its retirement day', () => {
    expect(checkVersion('2025-06-03', new Date('2026-10-08T23:59:59Z')).ok).toBe(true);
    expect(checkVersion('2025-06-03', new Date('2026-10-09T00:00:00Z')).ok).toBe(false);
  });
});

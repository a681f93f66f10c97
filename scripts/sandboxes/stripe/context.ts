// What every Stripe endpoint handler receives, plus the list-pagination rules shared by list endpoints.
import { noSuch, paramError } from './errors';
import type { StripeAccount } from './store';
import { fields } from './form';
import type { ParamSpec } from './form';

export interface StripeContext {
  account: StripeAccount;
  /** Current time in whole seconds, the unit of every Stripe timestamp. */
  nowSeconds: number;
  nowMs: number;
  requestId: string;
  idempotencyKey: string | null;
  searchIndexLagMs: number;
  defaultCurrency: string;
  expand: readonly string[];
  /**
   * Where the hosted invoice and Checkout pages are (npm start's sandbox serves its own, on
   * loopback: stripe/hosted-pages.ts); undefined: the provider's own hosts, as the API answers them.
   */
  hostedOrigin?: string | undefined;
  emit(type: string, object: unknown, previousAttributes?: Record<string, unknown>): void;
}

export const paginationFields: Record<string, ParamSpec> = {
  limit: { kind: 'integer', min: 1, max: 100 },
  starting_after: { kind: 'string' },
  ending_before: { kind: 'string' },
  expand: { kind: 'expand' },
};

export const expandOnly = fields({ expand: { kind: 'expand' } });

export interface ListObject {
  object: 'list';
  data: unknown[];
  has_more: boolean;
  url: string;
}

interface Listable {
  id: string;
  created: number;
  seq: number;
}

/** Stripe lists are newest first; `starting_after` pages forward, `ending_before` backward. */
export function paginate<T extends Listable>(
  items: Iterable<T>,
  params: Record<string, unknown>,
  url: string,
  kind: string,
  render: (item: T) => unknown,
): ListObject {
  const sorted = [...items].sort((a, b) => b.created - a.created || b.seq - a.seq);
  const limit = (params['limit'] as number | undefined) ?? 10;
  const after = params['starting_after'] as string | undefined;
  const before = params['ending_before'] as string | undefined;
  let page: T[];
  let hasMore: boolean;
  if (after) {
    const i = sorted.findIndex((x) => x.id === after);
    if (i < 0) throw noSuch(kind, after, 'starting_after', 404);
    const rest = sorted.slice(i + 1);
    page = rest.slice(0, limit);
    hasMore = rest.length > limit;
  } else if (before) {
    const i = sorted.findIndex((x) => x.id === before);
    if (i < 0) throw noSuch(kind, before, 'ending_before', 404);
    const rest = sorted.slice(0, i);
    page = rest.slice(Math.max(0, rest.length - limit));
    hasMore = rest.length > limit;
  } else {
    page = sorted.slice(0, limit);
    hasMore = sorted.length > limit;
  }
  return { object: 'list', data: page.map(render), has_more: hasMore, url };
}

export function matchesRange(value: number, range: unknown): boolean {
  if (range === undefined) return true;
  const r = range as { eq?: number; gt?: number; gte?: number; lt?: number; lte?: number };
  return (
    (r.eq === undefined || value === r.eq) &&
    (r.gt === undefined || value > r.gt) &&
    (r.gte === undefined || value >= r.gte) &&
    (r.lt === undefined || value < r.lt) &&
    (r.lte === undefined || value <= r.lte)
  );
}

/** Stripe rejects expansion of anything that is not an expandable reference on that object. */
export function checkExpand(expand: readonly string[], allowed: readonly string[]): void {
  for (const e of expand) {
    if (!allowed.includes(e)) throw paramError(`This property cannot be expanded (${e}).`, 'expand');
  }
}

/** Pagination over a list kept in its own order (invoice lines, session line items). */
export function pageInOrder<T>(
  items: readonly T[],
  idOf: (item: T) => string,
  params: Record<string, unknown>,
  url: string,
  kind: string,
  render: (item: T) => unknown,
): ListObject {
  const limit = (params['limit'] as number | undefined) ?? 10;
  const after = params['starting_after'] as string | undefined;
  const before = params['ending_before'] as string | undefined;
  let start = 0;
  let end = items.length;
  if (after !== undefined) {
    const i = items.findIndex((x) => idOf(x) === after);
    if (i < 0) throw noSuch(kind, after, 'starting_after', 404);
    start = i + 1;
    end = Math.min(items.length, start + limit);
    return { object: 'list', data: items.slice(start, end).map(render), has_more: items.length > end, url };
  }
  if (before !== undefined) {
    const i = items.findIndex((x) => idOf(x) === before);
    if (i < 0) throw noSuch(kind, before, 'ending_before', 404);
    start = Math.max(0, i - limit);
    return { object: 'list', data: items.slice(start, i).map(render), has_more: start > 0, url };
  }
  return { object: 'list', data: items.slice(0, limit).map(render), has_more: items.length > limit, url };
}

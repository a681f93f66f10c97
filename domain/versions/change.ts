/**
 * D16: one dated change of the API, written once. Its transform turns a body of its version into
 * the shape of the version before it; what a body is (a response of one route, or the data of one
 * event) is the target. A transform returns the body unchanged when the change does not touch that
 * target, and never modifies its input.
 */
export type Target = { kind: 'response'; route: string } | { kind: 'event'; event: string };

export interface VersionChange {
  /** The version that introduced the change (YYYY-MM-DD). */
  version: string;
  description: string;
  transform(target: Target, body: unknown): unknown;
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The routes whose answer is a `/v1/quotes` Quote (document 001 section 2). */
export const V1_QUOTE_ROUTES: readonly string[] = ['/v1/quotes', '/v1/quotes/:id', '/v1/quotes/:id/revisions'];

export const isQuoteResponse = (target: Target) => target.kind === 'response' && V1_QUOTE_ROUTES.includes(target.route);

/** D23: the routes whose answer is one Route, and those whose answer holds routes in `data`. */
export const ROUTE_RESPONSES = { one: ['/v1/fsm/routes/:date/:crew_id'], day: ['/v1/fsm/routes', '/v1/fsm/routes/:date/plan'] } as const;

/** Applies `shape` to each Route of a route response (the route itself, or each of `data`). */
export function mapRoutes(target: Target, body: unknown, shape: (route: Record<string, unknown>) => Record<string, unknown>): unknown {
  if (target.kind !== 'response' || !isRecord(body)) return body;
  if ((ROUTE_RESPONSES.one as readonly string[]).includes(target.route)) return shape(body);
  if ((ROUTE_RESPONSES.day as readonly string[]).includes(target.route) && Array.isArray(body.data)) {
    return { ...body, data: body.data.map((route: unknown) => (isRecord(route) ? shape(route) : route)) };
  }
  return body;
}

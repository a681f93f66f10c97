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

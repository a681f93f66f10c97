import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * D24's page links: 32 random bytes (unguessable), base64url in the URL, and only their SHA-256
 * kept (db/quotes/page-links.ts). A path segment that is not a token's shape is no link at all.
 */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export const newPageToken = (): string => randomBytes(32).toString('base64url');
export const isPageTokenShape = (token: string): boolean => TOKEN_SHAPE.test(token);
export const pageTokenHash = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/**
 * The page's form token, bound to its link: an HMAC of the link's hash under the deployment's
 * signing secret. A cross-site form cannot read it (it is only on the page), and a token of one
 * link is worth nothing on another.
 */
export function csrfToken(secret: string, tokenHash: Buffer): string {
  return createHmac('sha256', secret).update('quote-page-form\0').update(tokenHash).digest('base64url');
}

export function csrfMatches(secret: string, tokenHash: Buffer, presented: string): boolean {
  const expected = Buffer.from(csrfToken(secret, tokenHash));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

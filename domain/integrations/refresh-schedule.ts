/**
 * When to refresh an access token (our decision, docs/decisions.md "Integrations"): five minutes
 * before it lapses, or after three quarters of its life when it lives less than twenty minutes
 * (so short-lived tokens still get a refresh in time). A token whose lifetime the provider did
 * not state is refreshed an hour after it was obtained.
 */
export const MAX_REFRESH_LEAD_MS = 5 * 60_000;
export const UNKNOWN_LIFETIME_REFRESH_MS = 60 * 60_000;

export function refreshAt(tokens: { accessTokenExpiresAt: Date | null; tokensObtainedAt: Date | null }, now: number): Date {
  const obtained = tokens.tokensObtainedAt?.getTime() ?? now;
  if (!tokens.accessTokenExpiresAt) return new Date(obtained + UNKNOWN_LIFETIME_REFRESH_MS);
  const expires = tokens.accessTokenExpiresAt.getTime();
  const lifetime = Math.max(0, expires - obtained);
  return new Date(expires - Math.min(MAX_REFRESH_LEAD_MS, lifetime / 4));
}

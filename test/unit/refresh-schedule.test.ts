import { describe, expect, it } from '@jest/globals';
import { MAX_REFRESH_LEAD_MS, refreshAt, UNKNOWN_LIFETIME_REFRESH_MS } from '../../domain/integrations/refresh-schedule';

/** When the token refresh workflow refreshes (docs/decisions.md, Integrations: refresh lead time). */
const NOW = Date.parse('2026-11-21T12:00:00Z');
const at = (offsetMs: number) => new Date(NOW + offsetMs);

describe('refreshAt', () => {
  it('five minutes before expiry for an hour-long token (QuickBooks) or a two-hour session (Salesforce)', () => {
    expect(refreshAt({ tokensObtainedAt: at(0), accessTokenExpiresAt: at(3600_000) }, NOW)).toEqual(at(3600_000 - MAX_REFRESH_LEAD_MS));
    expect(refreshAt({ tokensObtainedAt: at(0), accessTokenExpiresAt: at(7200_000) }, NOW)).toEqual(at(7200_000 - 300_000));
  });

  it('after three quarters of a short life', () => {
    expect(refreshAt({ tokensObtainedAt: at(0), accessTokenExpiresAt: at(2000) }, NOW)).toEqual(at(1500));
    expect(refreshAt({ tokensObtainedAt: at(0), accessTokenExpiresAt: at(600_000) }, NOW)).toEqual(at(450_000));
  });

  it('at once for a token already past its refresh time, and an hour after obtaining one of unknown life', () => {
    expect(refreshAt({ tokensObtainedAt: at(-3600_000), accessTokenExpiresAt: at(-1000) }, NOW).getTime()).toBeLessThan(NOW);
    expect(refreshAt({ tokensObtainedAt: at(-60_000), accessTokenExpiresAt: null }, NOW)).toEqual(at(UNKNOWN_LIFETIME_REFRESH_MS - 60_000));
    expect(refreshAt({ tokensObtainedAt: null, accessTokenExpiresAt: null }, NOW)).toEqual(at(UNKNOWN_LIFETIME_REFRESH_MS));
  });
});

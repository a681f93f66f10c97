import type { ProviderSlug } from '../connectors';

/** The providers a tenant connects with its own consent (D7, D9); payments is the platform's. */
export const OAUTH_PROVIDERS = ['ACCOUNTING', 'CRM'] as const;
export type OAuthProviderName = (typeof OAUTH_PROVIDERS)[number];
export type ProviderName = 'PAYMENTS' | OAuthProviderName;

export const providerOfSlug = (slug: ProviderSlug): ProviderName => slug.toUpperCase() as ProviderName;
export const slugOfProvider = (provider: ProviderName): ProviderSlug => provider.toLowerCase() as ProviderSlug;

/** What a code exchange or a refresh yields, in our terms. */
export interface TokenGrant {
  accessToken: string;
  /** Undefined when the provider did not send one (the current refresh token stays valid). */
  refreshToken: string | undefined;
  /** Null when the provider does not say. */
  accessTokenExpiresAt: Date | null;
  refreshTokenExpiresAt: Date | null;
}

export interface ConnectedGrant extends TokenGrant {
  refreshToken: string;
  externalAccountId: string;
  instanceUrl: string | null;
  scopes: string[];
}

/** The callback's parameters that the exchange needs. */
export interface CallbackParams {
  code: string;
  realmId?: string | undefined;
}

/**
 * One provider's OAuth 2.0 authorization-code flow, behind which sits its own library
 * (D7: intuit-oauth for accounting, jsforce for CRM).
 */
export interface OAuthProvider {
  readonly name: OAuthProviderName;
  /** The consent page, carrying our signed state. */
  authorizeUrl(state: string): string;
  exchangeCode(params: CallbackParams): Promise<ConnectedGrant>;
  refresh(refreshToken: string): Promise<TokenGrant>;
  /** Best effort: ends the grant at the provider. */
  revoke(refreshToken: string): Promise<void>;
  /** True for a provider API error that means "this access token is no longer accepted". */
  isUnauthorized(error: unknown): boolean;
}

/**
 * The provider refused a grant: `invalid_grant` (revoked, expired or already used refresh token
 * or code) and `invalid_client` (our client credentials) are not worth retrying. Anything else a
 * provider call throws (network, 5xx, 429) is transient.
 */
export class OAuthRefusal extends Error {
  constructor(
    readonly provider: OAuthProviderName,
    /** The provider's OAuth error code, e.g. `invalid_grant`. */
    readonly code: string,
    description: string,
  ) {
    super(`${provider.toLowerCase()} provider refused the grant: ${code}${description ? ` (${description})` : ''}`);
  }

  get grantInvalid(): boolean {
    return this.code === 'invalid_grant';
  }
}

/** OAuth error codes (RFC 6749 5.2) that are refusals rather than trouble. */
export const REFUSAL_CODES = new Set(['invalid_grant', 'invalid_client', 'unauthorized_client', 'invalid_request', 'unsupported_grant_type', 'invalid_scope', 'redirect_uri_mismatch', 'invalid_client_id']);

export const secondsFromNow = (seconds: unknown, now = Date.now()): Date | null =>
  typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? new Date(now + seconds * 1000) : null;

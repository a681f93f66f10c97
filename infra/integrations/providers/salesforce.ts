import { createRequire } from 'node:module';
import { OAuthRefusal, REFUSAL_CODES, type CallbackParams, type ConnectedGrant, type OAuthProvider, type TokenGrant } from './oauth-provider';

export interface SalesforceOptions {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** CRM_LOGIN_URL: login.salesforce.com, test.salesforce.com, My Domain, or a local fake. */
  loginUrl: string;
  /** Salesforce does not report when an access token lapses; the org session timeout assumed. */
  sessionSeconds: number;
}

const SCOPES = ['api', 'refresh_token'];
export const SALESFORCE_API_VERSION = '62.0';

/**
 * jsforce, loaded at the first Salesforce call rather than by every API and worker at start: it
 * holds about 14 MB resident once loaded, and most tenants never connect a CRM.
 */
const require = createRequire(import.meta.url);
let loadedJsforce: typeof import('jsforce').default | undefined;
const jsforce = () => (loadedJsforce ??= require('jsforce') as typeof import('jsforce').default);

/** D7: the CRM is Salesforce, through jsforce's OAuth2 (web-server flow). */
export class SalesforceOAuth implements OAuthProvider {
  readonly name = 'CRM' as const;

  constructor(private readonly options: SalesforceOptions) {}

  private oauth2() {
    return new (jsforce().OAuth2)({
      loginUrl: this.options.loginUrl,
      clientId: this.options.clientId,
      clientSecret: this.options.clientSecret,
      redirectUri: this.options.redirectUri,
    });
  }

  /**
   * A connection for one session's API calls. It is given no refresh token on purpose: on a 401
   * the caller refreshes through the locked, rotation-safe path (withFreshToken), never jsforce
   * on its own.
   */
  connection(session: { accessToken: string; instanceUrl: string }) {
    return new (jsforce().Connection)({ instanceUrl: session.instanceUrl, accessToken: session.accessToken, version: SALESFORCE_API_VERSION });
  }

  authorizeUrl(state: string): string {
    return this.oauth2().getAuthorizationUrl({ scope: SCOPES.join(' '), state });
  }

  async exchangeCode(params: CallbackParams): Promise<ConnectedGrant> {
    const token = await this.call(() => this.oauth2().requestToken(params.code));
    if (!token.refresh_token) throw new OAuthRefusal(this.name, 'invalid_scope', 'no refresh token was granted (the refresh_token scope is required)');
    // The identity URL is https://login.salesforce.com/id/<org id>/<user id>.
    const orgId = /\/id\/([^/]+)\/[^/]+\/?$/.exec(token.id)?.[1];
    if (!orgId) throw new Error('CRM provider answered the code exchange without an identity URL');
    return {
      ...this.grantOf(token),
      refreshToken: token.refresh_token,
      externalAccountId: orgId,
      instanceUrl: token.instance_url,
      scopes: (token.scope ?? SCOPES.join(' ')).split(/\s+/).filter(Boolean),
    };
  }

  async refresh(refreshToken: string): Promise<TokenGrant> {
    return this.grantOf(await this.call(() => this.oauth2().refreshToken(refreshToken)));
  }

  async revoke(refreshToken: string): Promise<void> {
    await this.call(() => this.oauth2().revokeToken(refreshToken));
  }

  isUnauthorized(error: unknown): boolean {
    return (error as { errorCode?: unknown } | null)?.errorCode === 'INVALID_SESSION_ID';
  }

  private grantOf(token: { access_token: string; refresh_token?: string; issued_at?: string }): TokenGrant {
    const issuedAt = Number(token.issued_at);
    const from = Number.isFinite(issuedAt) && issuedAt > 0 ? Math.min(issuedAt, Date.now()) : Date.now();
    return {
      accessToken: token.access_token,
      // Present only when the org rotates refresh tokens; otherwise the stored one stays valid.
      refreshToken: token.refresh_token || undefined,
      accessTokenExpiresAt: new Date(from + this.options.sessionSeconds * 1000),
      refreshTokenExpiresAt: null,
    };
  }

  /** jsforce's OAuth2 rejects with an Error whose name is the OAuth error code. */
  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const code = error instanceof Error ? error.name : undefined;
      if (code && REFUSAL_CODES.has(code)) throw new OAuthRefusal(this.name, code, (error as Error).message.slice(0, 200));
      throw new Error(`CRM provider unavailable: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500));
    }
  }
}

import OAuthClient from 'intuit-oauth';
import { OAuthRefusal, REFUSAL_CODES, secondsFromNow, type CallbackParams, type ConnectedGrant, type OAuthProvider, type TokenGrant } from './oauth-provider';

export interface QuickBooksOptions {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  environment: 'sandbox' | 'production';
  /** ACCOUNTING_API_BASE_URL: one origin serving Intuit's OAuth and accounting paths (a local fake). */
  baseUrl?: string | undefined;
}

const SCOPES = [OAuthClient.scopes.Accounting];

/**
 * D7: the accounting provider is QuickBooks Online, through intuit-oauth. The library keeps its
 * endpoints and retry settings in static properties, so this adapter sets them once for the
 * process: a deployment talks to one accounting provider.
 */
export class QuickBooksOAuth implements OAuthProvider {
  readonly name = 'ACCOUNTING' as const;

  constructor(private readonly options: QuickBooksOptions) {
    if (options.baseUrl) {
      const origin = options.baseUrl.replace(/\/+$/, '');
      OAuthClient.authorizeEndpoint = `${origin}/connect/oauth2`;
      OAuthClient.tokenEndpoint = `${origin}/oauth2/v1/tokens/bearer`;
      OAuthClient.revokeEndpoint = `${origin}/v2/oauth2/tokens/revoke`;
      OAuthClient.userinfo_endpoint_sandbox = `${origin}/v1/openid_connect/userinfo`;
      OAuthClient.userinfo_endpoint_production = `${origin}/v1/openid_connect/userinfo`;
      OAuthClient.environment.sandbox = `${origin}/`;
      OAuthClient.environment.production = `${origin}/`;
    }
    // Token calls are retried by Temporal's policies (counted and visible there), not by the
    // library's own sleeps inside one activity attempt.
    OAuthClient.retryConfig.maxRetries = 0;
  }

  /** The accounting API base the connection's calls go to (recorded as its instance URL). */
  get apiBaseUrl(): string {
    return OAuthClient.environment[this.options.environment];
  }

  /** A client holding one connection's tokens; every use gets its own (the library keeps state). */
  client(token?: { accessToken: string; realmId: string }): OAuthClient {
    const client = new OAuthClient({
      environment: this.options.environment,
      clientId: this.options.clientId,
      clientSecret: this.options.clientSecret,
      redirectUri: this.options.redirectUri,
    });
    if (token) client.setToken({ access_token: token.accessToken, realmId: token.realmId, token_type: 'bearer' });
    return client;
  }

  authorizeUrl(state: string): string {
    return this.client().authorizeUri({ scope: SCOPES, state });
  }

  async exchangeCode(params: CallbackParams): Promise<ConnectedGrant> {
    if (!params.realmId) throw new OAuthRefusal(this.name, 'invalid_request', 'the callback carried no realmId');
    const query = new URLSearchParams({ code: params.code, realmId: params.realmId });
    const token = await this.call(async () => (await this.client().createToken(`?${query}`)).getToken());
    if (!token.access_token || !token.refresh_token) throw new Error('accounting provider answered the code exchange without tokens');
    return {
      ...this.grantOf(token),
      refreshToken: token.refresh_token,
      externalAccountId: params.realmId,
      instanceUrl: this.apiBaseUrl,
      scopes: SCOPES,
    };
  }

  async refresh(refreshToken: string): Promise<TokenGrant> {
    const token = await this.call(async () => (await this.client().refreshUsingToken(refreshToken)).getToken());
    if (!token.access_token) throw new Error('accounting provider answered the refresh without an access token');
    return this.grantOf(token);
  }

  async revoke(refreshToken: string): Promise<void> {
    await this.call(() => this.client().revoke({ refresh_token: refreshToken }));
  }

  isUnauthorized(error: unknown): boolean {
    return (error as { code?: unknown } | null)?.code === '401';
  }

  private grantOf(token: { access_token?: string; refresh_token?: string; expires_in?: number; x_refresh_token_expires_in?: number }): TokenGrant {
    const now = Date.now();
    return {
      accessToken: token.access_token ?? '',
      // QuickBooks rotates refresh tokens: whatever comes back replaces the stored one.
      refreshToken: token.refresh_token || undefined,
      accessTokenExpiresAt: secondsFromNow(token.expires_in, now),
      refreshTokenExpiresAt: secondsFromNow(token.x_refresh_token_expires_in, now),
    };
  }

  /** intuit-oauth rejects with `{error, error_description}`; refusals become OAuthRefusal. */
  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const code = (error as { error?: unknown } | null)?.error;
      if (typeof code === 'string' && REFUSAL_CODES.has(code)) {
        const description = (error as { error_description?: unknown }).error_description;
        throw new OAuthRefusal(this.name, code, typeof description === 'string' ? description.slice(0, 200) : '');
      }
      // Transient: a plain error whose message names no token (the library's messages do not).
      throw new Error(`accounting provider unavailable: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500));
    }
  }
}

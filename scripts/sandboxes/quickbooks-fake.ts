// A local Intuit OAuth 2.0 server plus QuickBooks Online Accounting API v3 for tests.
//
// intuit-oauth keeps its endpoints in static properties, so it is pointed here with its own
// supported setter and the environment map (both are process-wide):
//   oauthClient.setAuthorizeURLs(fake.intuitUrls());          // authorize, token, revoke, userinfo
//   OAuthClient.environment.sandbox = fake.apiBaseUrl();      // for relative makeApiCall urls
// or pass absolute URLs (`${fake.apiBaseUrl()}v3/company/...`) to makeApiCall, which it accepts as-is.
import { HttpFake, json } from './core/http-fake';
import type { FakeRequest, FakeResponse, StartedFake } from './core/http-fake';
import type { FaultInjector, RequestLog } from './faults';
import { createPayment } from './quickbooks/entities';
import { handleApi, intuitTid, qboFaultResponse } from './quickbooks/api';
import { QboOAuth } from './quickbooks/oauth';
import type { ConsentDecision, QboOAuthClient } from './quickbooks/oauth';
import { QboRealm } from './quickbooks/realm';
import type { QboEntity, RealmSeed } from './quickbooks/realm';

export type { QboOAuthClient, ConsentDecision } from './quickbooks/oauth';
export type { RealmSeed, TaxCodeSeed, QboEntity } from './quickbooks/realm';

export interface QuickBooksFakeOptions {
  clients?: readonly QboOAuthClient[];
  realms?: readonly RealmSeed[];
  /** Intuit: 3600. Tests shorten it (e.g. 2) to exercise expiry. */
  accessTokenTtlSeconds?: number;
  /** Intuit: 8726400 (101 days). intuit-oauth refuses to refresh within 60 s of this expiring. */
  refreshTokenTtlSeconds?: number;
  /** Maximum lifetime of a connection, reported as x_refresh_token_hard_expires_in on request. */
  refreshTokenHardTtlSeconds?: number;
  authorizationCodeTtlSeconds?: number;
  /** Each refresh returns a new refresh token and kills the presented one. Default true. */
  rotateRefreshTokens?: boolean;
  /** Show a consent page with Approve and Deny when no decision is queued (npm start's sandbox). Default false. */
  consentPage?: boolean;
  /** Most objects one /cdc answer holds (QBO: 1000); tests lower it to exercise paging. */
  cdcMaxResults?: number;
  now?: () => number;
}

export const DEFAULT_QBO_CLIENT: QboOAuthClient = {
  clientId: 'ABqboFakeClientId000000000000000000000000000000',
  clientSecret: 'qboFakeClientSecret0000000000000000000000',
  redirectUris: ['http://localhost:3000/integrations/quickbooks/callback'],
};
export const DEFAULT_REALM_ID = '9341452000000001';

export class QuickBooksFake {
  readonly #http: HttpFake;
  readonly #oauth: QboOAuth;
  readonly #realms = new Map<string, QboRealm>();
  readonly #now: () => number;
  readonly #cdcMaxResults: number | undefined;

  constructor(opts: QuickBooksFakeOptions = {}) {
    this.#cdcMaxResults = opts.cdcMaxResults;
    this.#now = opts.now ?? Date.now;
    for (const seed of opts.realms ?? [{ realmId: DEFAULT_REALM_ID }]) this.addRealm(seed);
    this.#oauth = new QboOAuth({
      clients: opts.clients ?? [DEFAULT_QBO_CLIENT],
      realmIds: () => [...this.#realms.keys()],
      accessTokenTtlSeconds: opts.accessTokenTtlSeconds ?? 3600,
      refreshTokenTtlSeconds: opts.refreshTokenTtlSeconds ?? 8_726_400,
      refreshTokenHardTtlSeconds: opts.refreshTokenHardTtlSeconds ?? 5 * 365 * 86_400,
      authorizationCodeTtlSeconds: opts.authorizationCodeTtlSeconds ?? 300,
      rotateRefreshTokens: opts.rotateRefreshTokens ?? true,
      consentPage: opts.consentPage ?? false,
      now: this.#now,
    });
    this.#http = new HttpFake(
      {
        handle: (req) => this.#route(req),
        faultResponse: (status, req) => {
          const realm = this.#realms.values().next().value;
          return qboFaultResponse(status, req, realm ? realm.timestamp(this.#now(), true) : new Date(this.#now()).toISOString());
        },
        idempotencyKey: (req) => (req.path.startsWith('/v3/') ? req.query.get('requestid') ?? undefined : undefined),
      },
      this.#now,
    );
  }

  get faults(): FaultInjector {
    return this.#http.faults;
  }

  get requests(): RequestLog {
    return this.#http.requests;
  }

  get url(): string {
    return this.#http.url;
  }

  start(port = 0): Promise<StartedFake> {
    return this.#http.start(port);
  }

  close(): Promise<void> {
    return this.#http.close();
  }

  /** Argument for intuit-oauth's `setAuthorizeURLs`. */
  intuitUrls(): { authorizeEndpoint: string; tokenEndpoint: string; revokeEndpoint: string; userInfoEndpoint: string } {
    return {
      authorizeEndpoint: `${this.url}/connect/oauth2`,
      tokenEndpoint: `${this.url}/oauth2/v1/tokens/bearer`,
      revokeEndpoint: `${this.url}/v2/oauth2/tokens/revoke`,
      userInfoEndpoint: `${this.url}/v1/openid_connect/userinfo`,
    };
  }

  /** Accounting API base with trailing slash, like OAuthClient.environment.sandbox. */
  apiBaseUrl(): string {
    return `${this.url}/`;
  }

  addRealm(seed: RealmSeed): void {
    if (this.#realms.has(seed.realmId)) throw new Error(`realm ${seed.realmId} exists`);
    this.#realms.set(seed.realmId, new QboRealm(seed, () => this.#now()));
  }

  /** How the next visitor of the consent page answers; default: approve for the first realm. */
  queueConsent(decision: ConsentDecision): void {
    this.#oauth.queueConsent(decision);
  }

  readonly inspect = {
    customers: (realmId = DEFAULT_REALM_ID): QboEntity[] => this.#entities(realmId, 'Customer'),
    invoices: (realmId = DEFAULT_REALM_ID): QboEntity[] => this.#entities(realmId, 'Invoice'),
    payments: (realmId = DEFAULT_REALM_ID): QboEntity[] => this.#entities(realmId, 'Payment'),
    grants: () => this.#oauth.grants(),
    liveRefreshTokens: () => this.#oauth.liveRefreshTokens(),
  };

  /** What a bookkeeper does when the customer pays: a Payment of the invoice's whole balance. */
  recordPaymentAsBookkeeper(realmId: string, invoiceId: string): QboEntity {
    const realm = this.#realms.get(realmId);
    if (!realm) throw new Error(`unknown realm ${realmId}`);
    const invoice = realm.table('Invoice').get(invoiceId);
    if (!invoice) throw new Error(`unknown invoice ${invoiceId}`);
    const amount = invoice['Balance'] as number;
    return structuredClone(
      createPayment(realm, { CustomerRef: invoice['CustomerRef'], TotalAmt: amount, Line: [{ Amount: amount, LinkedTxn: [{ TxnId: invoiceId, TxnType: 'Invoice' }] }] }),
    );
  }

  #entities(realmId: string, name: 'Customer' | 'Invoice' | 'Payment'): QboEntity[] {
    const realm = this.#realms.get(realmId);
    if (!realm) throw new Error(`unknown realm ${realmId}`);
    return [...realm.table(name).values()].map((e) => structuredClone(e));
  }

  #userInfo(req: FakeRequest): FakeResponse {
    const auth = this.#oauth.checkBearer(req);
    if (!auth.ok) return json(401, { error: 'invalid_token', error_description: auth.detail }, { intuit_tid: intuitTid() });
    if (!auth.scopes.includes('openid')) return json(403, { error: 'insufficient_scope' }, { intuit_tid: intuitTid() });
    const realm = this.#realms.get(auth.realmId) as QboRealm;
    const email = `owner@realm${realm.realmId}.example`;
    return json(200, { sub: `fake-user-${realm.realmId}`, email, emailVerified: true, givenName: 'Test', familyName: 'Owner' }, { intuit_tid: intuitTid() });
  }

  #route(req: FakeRequest): FakeResponse {
    const { method, path } = req;
    if ((method === 'GET' || method === 'POST') && path === '/connect/oauth2') return this.#oauth.authorize(req);
    if (method === 'POST' && path === '/oauth2/v1/tokens/bearer') return this.#oauth.token(req);
    if (method === 'POST' && path === '/v2/oauth2/tokens/revoke') return this.#oauth.revoke(req);
    if (method === 'GET' && path === '/v1/openid_connect/userinfo') return this.#userInfo(req);
    const m = /^\/v3\/company\/([^/]+)\/(.+)$/.exec(path);
    if (m) return handleApi({ oauth: this.#oauth, realm: (id) => this.#realms.get(id), now: this.#now, ...(this.#cdcMaxResults ? { cdcMaxResults: this.#cdcMaxResults } : {}) }, req, decodeURIComponent(m[1] as string), (m[2] as string).split('/').map(decodeURIComponent));
    return { status: 404, headers: { 'content-type': 'text/html;charset=UTF-8' }, body: '<html><body>Not Found</body></html>' };
  }
}

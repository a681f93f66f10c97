// A local Salesforce (login server + instance) for tests. Point jsforce at it with
//   const oauth2 = new jsforce.OAuth2({ loginUrl: fake.url, clientId, clientSecret, redirectUri });
//   const conn = new jsforce.Connection({ oauth2, version: '62.0' });
// (jsforce derives /services/oauth2/authorize|token|revoke from loginUrl); after
// `conn.authorize(code)` the connection uses the instance_url from the token response, which is
// this same server. Several orgs can be configured; each consent binds one org and user.
import { HttpFake, json } from './core/http-fake';
import type { FakeRequest, FakeResponse, StartedFake } from './core/http-fake';
import type { FaultInjector, RequestLog } from './faults';
import { newSalesforceId } from './salesforce/ids';
import { SfOAuth } from './salesforce/oauth';
import type { SfConnectedApp, SfConsentDecision } from './salesforce/oauth';
import { SfOrg, insertRecord, renderRecord, updateRecord } from './salesforce/records';
import type { SfRecord } from './salesforce/records';
import { MAX_API_VERSION, MIN_API_VERSION, SfRest } from './salesforce/rest';
import { DEFAULT_CUSTOM_FIELDS, buildSchema } from './salesforce/schema';
import type { CustomFieldSpec, SObjectDef } from './salesforce/schema';

export type { SfConnectedApp, SfConsentDecision } from './salesforce/oauth';
export type { CustomFieldSpec, FieldDef } from './salesforce/schema';

export interface SalesforceOrgSeed {
  orgId?: string;
  users?: ReadonlyArray<{ username: string; displayName?: string; email?: string }>;
}

export interface SalesforceFakeOptions {
  apps?: readonly SfConnectedApp[];
  orgs?: readonly SalesforceOrgSeed[];
  /** Custom fields per sObject; default Opportunity.Quote_Id__c (external id, unique). */
  customFields?: Readonly<Record<string, readonly CustomFieldSpec[]>>;
  /** Session (access token) lifetime; Salesforce's default timeout is 2 hours. */
  sessionTtlSeconds?: number;
  authorizationCodeTtlSeconds?: number;
  /** Refresh Token Rotation (off by default in Salesforce): refresh returns a new token, old one dies. */
  rotateRefreshTokens?: boolean;
  /** SOQL batch size before nextRecordsUrl paging; Salesforce's default is 2000. */
  queryBatchSize?: number;
  /** Show a consent page with Approve and Deny when no decision is queued (npm start's sandbox). Default false. */
  consentPage?: boolean;
  now?: () => number;
}

export const DEFAULT_SF_APP: SfConnectedApp = {
  clientId: '3MVG9fakeConsumerKeyForShadeOfficeTests000000000000000000000000000000000000',
  clientSecret: 'FAKE0CONSUMER0SECRET0000000000000000000000000000000000000000000000',
  redirectUris: ['http://localhost:3000/integrations/salesforce/callback'],
};

const INVALID_SESSION = [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }];

export class SalesforceFake {
  readonly #http: HttpFake;
  readonly #oauth: SfOAuth;
  readonly #rest: SfRest;
  readonly #orgs: SfOrg[] = [];
  readonly #schema: Map<string, SObjectDef>;
  readonly #now: () => number;

  constructor(opts: SalesforceFakeOptions = {}) {
    this.#now = opts.now ?? Date.now;
    this.#schema = buildSchema(opts.customFields ?? DEFAULT_CUSTOM_FIELDS);
    for (const seed of opts.orgs ?? [{}]) this.addOrg(seed);
    this.#oauth = new SfOAuth({
      apps: opts.apps ?? [DEFAULT_SF_APP],
      orgs: () => this.#orgs,
      sessionTtlSeconds: opts.sessionTtlSeconds ?? 7200,
      authorizationCodeTtlSeconds: opts.authorizationCodeTtlSeconds ?? 900,
      rotateRefreshTokens: opts.rotateRefreshTokens ?? false,
      consentPage: opts.consentPage ?? false,
      now: this.#now,
    });
    this.#rest = new SfRest({ objects: (n) => this.#schema.get(n.toLowerCase()), now: this.#now, queryBatchSize: opts.queryBatchSize ?? 2000 });
    this.#http = new HttpFake({ handle: (req) => this.#route(req), faultResponse: (status, req) => this.#faultResponse(status, req) }, this.#now);
  }

  get faults(): FaultInjector {
    return this.#http.faults;
  }

  get requests(): RequestLog {
    return this.#http.requests;
  }

  /** Login URL (and instance URL) once started. */
  get url(): string {
    return this.#http.url;
  }

  start(port = 0): Promise<StartedFake> {
    return this.#http.start(port);
  }

  close(): Promise<void> {
    return this.#http.close();
  }

  /** Adds an org (with users); returns its 18-character org id. */
  addOrg(seed: SalesforceOrgSeed = {}): string {
    const orgId = seed.orgId ?? newSalesforceId('00D');
    const n = this.#orgs.length + 1;
    const users = (seed.users ?? [{ username: `admin@org${n}.example` }]).map((u) => ({
      id: newSalesforceId('005'),
      username: u.username,
      displayName: u.displayName ?? u.username.split('@')[0] ?? u.username,
      email: u.email ?? u.username,
    }));
    this.#orgs.push(new SfOrg(orgId, users));
    return orgId;
  }

  orgIds(): string[] {
    return this.#orgs.map((o) => o.orgId);
  }

  /** How the next visitor of the authorize page answers; default: first org, its first user. */
  queueConsent(decision: SfConsentDecision): void {
    this.#oauth.queueConsent(decision);
  }

  /** Ends all sessions now (as a timeout would), so the next API call gets INVALID_SESSION_ID. */
  expireSessions(): void {
    this.#oauth.expireAllSessions();
  }

  /** What a salesperson does in Salesforce: changes a record's fields (its SystemModstamp moves). */
  updateRecordAsUser(sobject: string, id: string, fields: Record<string, unknown>): void {
    const def = this.#schema.get(sobject.toLowerCase());
    if (!def) throw new Error(`unknown sObject ${sobject}`);
    const org = this.#orgs.find((o) => o.find(def.name, id));
    if (!org) throw new Error(`no ${sobject} ${id}`);
    updateRecord(org, def, org.find(def.name, id)!, fields, org.users[0]!.id, this.#now());
  }

  /** What a salesperson does in Salesforce: creates a record in an org; returns its id. */
  insertRecordAsUser(orgId: string, sobject: string, fields: Record<string, unknown>): string {
    const def = this.#schema.get(sobject.toLowerCase());
    const org = this.#orgs.find((o) => o.orgId === orgId);
    if (!def || !org) throw new Error(`unknown sObject ${sobject} or org ${orgId}`);
    return insertRecord(org, def, fields, org.users[0]!.id, this.#now())['Id'] as string;
  }

  readonly inspect = {
    records: (sobject: string, orgId?: string): SfRecord[] => {
      const def = this.#schema.get(sobject.toLowerCase());
      if (!def) throw new Error(`unknown sObject ${sobject}`);
      const orgs = orgId ? this.#orgs.filter((o) => o.orgId === orgId) : this.#orgs;
      return orgs.flatMap((o) => [...o.table(def.name).values()].filter((r) => r['IsDeleted'] !== true).map((r) => renderRecord(def, r, `${MAX_API_VERSION}.0`)));
    },
  };

  #faultResponse(status: number, req: FakeRequest): FakeResponse {
    if (req.path.startsWith('/services/oauth2/')) {
      return json(status, { error: status >= 500 ? 'temporarily_unavailable' : 'invalid_request', error_description: `injected ${status}` });
    }
    if (status === 429 || status === 403) return json(status, [{ message: 'TotalRequests Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' }]);
    if (status === 503) return json(status, [{ message: 'Server is unavailable', errorCode: 'SERVER_UNAVAILABLE' }]);
    if (status >= 500) return json(status, [{ message: 'An unexpected error occurred. Please include this ErrorId if you contact support: 1234567890-12345 (-1234567890)', errorCode: 'UNKNOWN_EXCEPTION' }]);
    return json(status, [{ message: `Injected ${status}`, errorCode: status === 401 ? 'INVALID_SESSION_ID' : 'INVALID_INPUT' }]);
  }

  #identity(req: FakeRequest, orgId: string, userId: string): FakeResponse {
    const s = this.#oauth.checkSession(req);
    if (!s.ok) return { status: 403, headers: { 'content-type': 'text/plain' }, body: 'Bad_OAuth_Token' };
    if (s.org.orgId !== orgId || s.user.id !== userId) return { status: 403, headers: { 'content-type': 'text/plain' }, body: 'Bad_Id' };
    const v = `${MAX_API_VERSION}.0`;
    return json(200, {
      id: `${req.origin}/id/${orgId}/${userId}`,
      asserted_user: true,
      user_id: userId,
      organization_id: orgId,
      username: s.user.username,
      nick_name: s.user.displayName,
      display_name: s.user.displayName,
      email: s.user.email,
      email_verified: true,
      active: true,
      user_type: 'STANDARD',
      language: 'en_US',
      locale: 'en_CA',
      utcOffset: -18000000,
      urls: {
        rest: `${req.origin}/services/data/v{version}/`,
        sobjects: `${req.origin}/services/data/v{version}/sobjects/`,
        query: `${req.origin}/services/data/v{version}/query/`,
        profile: `${req.origin}/${userId}`,
      },
      last_modified_date: new Date(this.#now()).toISOString().replace('Z', '+0000'),
      is_app_installed: true,
      api_version: v,
    });
  }

  #route(req: FakeRequest): FakeResponse {
    const { method, path } = req;
    if (path === '/services/oauth2/authorize' && (method === 'GET' || method === 'POST')) return this.#oauth.authorize(req);
    if (path === '/services/oauth2/token' && method === 'POST') return this.#oauth.token(req);
    if (path === '/services/oauth2/revoke' && (method === 'POST' || method === 'GET')) return this.#oauth.revoke(req);
    const id = /^\/id\/([^/]+)\/([^/]+)$/.exec(path);
    if (id && method === 'GET') return this.#identity(req, id[1] as string, id[2] as string);
    if (path === '/services/data' || path === '/services/data/') return this.#rest.versions();
    const data = /^\/services\/data\/v(\d+)\.0(?:\/(.*))?$/.exec(path);
    if (data) {
      const v = Number(data[1]);
      if (v < MIN_API_VERSION || v > MAX_API_VERSION) return json(404, [{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]);
      const session = this.#oauth.checkSession(req);
      if (!session.ok) return json(401, INVALID_SESSION, { 'www-authenticate': 'Token' });
      return this.#rest.handle(req, session.org, session.user, `${v}.0`, (data[2] ?? '').split('/').filter(Boolean));
    }
    return json(404, [{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]);
  }
}

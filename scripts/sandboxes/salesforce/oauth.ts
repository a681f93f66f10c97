// Salesforce's OAuth 2.0 web-server flow as jsforce's OAuth2 drives it: /services/oauth2/authorize
// (consent redirect with code and state, optional PKCE), /services/oauth2/token (authorization_code
// and refresh_token grants with client_id/client_secret in the form), /services/oauth2/revoke,
// and the identity URL. Token responses carry instance_url, id, issued_at and signature.
import { createHash, createHmac } from 'node:crypto';
import { json } from '../core/http-fake';
import type { FakeRequest, FakeResponse } from '../core/http-fake';
import { randomAlnum } from '../core/random';
import { authorizeParams, consentPage } from '../core/consent-page';
import type { SfOrg, SfUser } from './records';

export interface SfConnectedApp {
  clientId: string;
  clientSecret: string;
  redirectUris: readonly string[];
}

export interface SfConsentDecision {
  orgId?: string;
  /** Username of the consenting user within the org; default its first user. */
  username?: string;
  deny?: boolean;
}

export interface SfOAuthConfig {
  apps: readonly SfConnectedApp[];
  orgs: () => readonly SfOrg[];
  sessionTtlSeconds: number;
  authorizationCodeTtlSeconds: number;
  rotateRefreshTokens: boolean;
  /** Without a queued decision, show a consent page (a sandbox for people) instead of approving at once. */
  consentPage: boolean;
  now: () => number;
}

interface Grant {
  app: SfConnectedApp;
  org: SfOrg;
  user: SfUser;
  scope: string;
  revoked: boolean;
}

interface Code {
  grant: Grant;
  redirectUri: string;
  challenge: string | undefined;
  expiresAt: number;
  used: boolean;
}

interface Session {
  grant: Grant;
  expiresAt: number;
  revoked: boolean;
}

export type SessionCheck = { ok: true; org: SfOrg; user: SfUser } | { ok: false };

function oauthError(error: string, description: string, status = 400): FakeResponse {
  return json(status, { error, error_description: description });
}

function errorPage(text: string): FakeResponse {
  return { status: 400, headers: { 'content-type': 'text/html;charset=UTF-8' }, body: `<html><body><p>error=${text}</p></body></html>` };
}

function base64url(b: Buffer): string {
  return b.toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export class SfOAuth {
  readonly #cfg: SfOAuthConfig;
  readonly #codes = new Map<string, Code>();
  readonly #sessions = new Map<string, Session>();
  readonly #refresh = new Map<string, { grant: Grant; used: boolean }>();
  readonly #consents: SfConsentDecision[] = [];

  constructor(cfg: SfOAuthConfig) {
    this.#cfg = cfg;
  }

  queueConsent(d: SfConsentDecision): void {
    this.#consents.push(d);
  }

  #app(id: string | null): SfConnectedApp | undefined {
    return this.#cfg.apps.find((a) => a.clientId === id);
  }

  /** GET: the consent redirect (or page); POST: the consent page's Approve or Deny. */
  authorize(req: FakeRequest): FakeResponse {
    const q = authorizeParams(req);
    const app = this.#app(q.get('client_id'));
    if (!app) return errorPage('invalid_client_id&error_description=client%20identifier%20invalid');
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!app.redirectUris.includes(redirectUri)) return errorPage('redirect_uri_mismatch&error_description=redirect_uri%20must%20match%20configuration');
    const state = q.get('state');
    const back = (params: Record<string, string>): FakeResponse => {
      const u = new URL(redirectUri);
      for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
      if (state !== null) u.searchParams.set('state', state);
      return { status: 302, headers: { location: u.toString() }, body: '' };
    };
    if (q.get('response_type') !== 'code') {
      return back({ error: 'unsupported_response_type', error_description: 'response type not supported' });
    }
    const method = q.get('code_challenge_method') ?? 'S256';
    const challenge = q.get('code_challenge') ?? undefined;
    if (challenge !== undefined && method !== 'S256') return back({ error: 'invalid_request', error_description: 'unsupported code_challenge_method' });
    let decision: SfConsentDecision;
    if (req.method === 'POST') {
      decision = q.get('decision') === 'approve' ? {} : { deny: true };
    } else {
      const queued = this.#consents.shift();
      if (!queued && this.#cfg.consentPage) {
        const org = this.#cfg.orgs()[0];
        const account = org ? `org ${org.orgId} as ${org.users[0]?.username ?? 'its first user'}` : 'no org';
        return consentPage({ provider: 'Salesforce sandbox', action: req.path, params: new URLSearchParams(q), account, redirectUri, scopes: (q.get('scope') ?? 'api refresh_token').split(' ') });
      }
      decision = queued ?? {};
    }
    if (decision.deny) return back({ error: 'access_denied', error_description: 'end-user denied authorization' });
    const org = decision.orgId ? this.#cfg.orgs().find((o) => o.orgId === decision.orgId) : this.#cfg.orgs()[0];
    if (!org) throw new Error(`consent for unknown org ${String(decision.orgId)}`);
    const user = decision.username ? org.users.find((u) => u.username === decision.username) : org.users[0];
    if (!user) throw new Error(`consent for unknown user ${String(decision.username)}`);
    const scope = q.get('scope') ?? 'api refresh_token';
    // Salesforce codes are base64 and end in '==', so clients must URL-decode them.
    const code = `aPrx${randomAlnum(80)}==`;
    this.#codes.set(code, {
      grant: { app, org, user, scope, revoked: false },
      redirectUri,
      challenge,
      expiresAt: this.#cfg.now() + this.#cfg.authorizationCodeTtlSeconds * 1000,
      used: false,
    });
    return back({ code });
  }

  #issue(grant: Grant, origin: string, withRefresh: boolean): FakeResponse {
    const now = this.#cfg.now();
    const orgId15 = grant.org.orgId.slice(0, 15);
    const access = `${orgId15}!AQ${randomAlnum(6)}.${randomAlnum(96)}`;
    this.#sessions.set(access, { grant, expiresAt: now + this.#cfg.sessionTtlSeconds * 1000, revoked: false });
    const id = `${origin}/id/${grant.org.orgId}/${grant.user.id}`;
    const issuedAt = String(now);
    const body: Record<string, string> = {
      access_token: access,
      signature: createHmac('sha256', grant.app.clientSecret).update(id + issuedAt).digest('base64'),
      scope: grant.scope,
      instance_url: origin,
      id,
      token_type: 'Bearer',
      issued_at: issuedAt,
    };
    if (withRefresh) {
      const refresh = `5Aep861${randomAlnum(80)}`;
      this.#refresh.set(refresh, { grant, used: false });
      body['refresh_token'] = refresh;
    }
    return json(200, body, { 'cache-control': 'no-cache,must-revalidate,max-age=0,no-store,private' });
  }

  token(req: FakeRequest): FakeResponse {
    const form = new URLSearchParams(req.body.toString('utf8'));
    const app = this.#app(form.get('client_id'));
    if (!app) return oauthError('invalid_client_id', 'client identifier invalid');
    if (form.get('client_secret') !== null && form.get('client_secret') !== app.clientSecret) return oauthError('invalid_client', 'invalid client credentials');
    const grantType = form.get('grant_type');
    const now = this.#cfg.now();
    if (grantType === 'authorization_code') {
      const code = this.#codes.get(form.get('code') ?? '');
      if (!code || code.used || code.expiresAt <= now || code.grant.app !== app) return oauthError('invalid_grant', 'authentication failure');
      if (form.get('redirect_uri') !== code.redirectUri) return oauthError('redirect_uri_mismatch', 'redirect_uri must match configuration');
      if (code.challenge !== undefined) {
        const verifier = form.get('code_verifier') ?? '';
        if (base64url(createHash('sha256').update(verifier).digest()) !== code.challenge) return oauthError('invalid_grant', 'invalid code verifier');
      } else if (form.get('client_secret') === null) {
        return oauthError('invalid_client', 'invalid client credentials');
      }
      code.used = true;
      const scopes = code.grant.scope.split(/\s+/);
      return this.#issue(code.grant, req.origin, scopes.some((s) => ['refresh_token', 'offline_access', 'full'].includes(s)));
    }
    if (grantType === 'refresh_token') {
      const rec = this.#refresh.get(form.get('refresh_token') ?? '');
      if (!rec || rec.used || rec.grant.revoked || rec.grant.app !== app) return oauthError('invalid_grant', 'expired access/refresh token');
      if (this.#cfg.rotateRefreshTokens) rec.used = true;
      return this.#issue(rec.grant, req.origin, this.#cfg.rotateRefreshTokens);
    }
    return oauthError('unsupported_grant_type', grantType ? `salesforce-fake does not emulate grant type ${grantType}` : 'grant type not supported');
  }

  revoke(req: FakeRequest): FakeResponse {
    const token = (req.method === 'GET' ? req.query : new URLSearchParams(req.body.toString('utf8'))).get('token') ?? '';
    const refresh = this.#refresh.get(token);
    const session = this.#sessions.get(token);
    if (refresh) {
      // Revoking a refresh token also revokes every session issued from it.
      refresh.grant.revoked = true;
    } else if (session) {
      session.revoked = true;
    } else {
      return { status: 400, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'error=unsupported_token_type&error_description=this%20token%20type%20is%20not%20supported' };
    }
    return { status: 200, headers: { 'content-type': 'text/html;charset=UTF-8' }, body: '' };
  }

  checkSession(req: FakeRequest): SessionCheck {
    const m = /^(?:Bearer|OAuth)\s+(\S+)$/i.exec(req.header('authorization') ?? '');
    const s = m ? this.#sessions.get(m[1] as string) : undefined;
    if (!s || s.revoked || s.grant.revoked || s.expiresAt <= this.#cfg.now()) return { ok: false };
    return { ok: true, org: s.grant.org, user: s.grant.user };
  }

  /** Ends every session immediately, as an admin "revoke session" or a timeout would. */
  expireAllSessions(): void {
    for (const s of this.#sessions.values()) s.expiresAt = 0;
  }
}

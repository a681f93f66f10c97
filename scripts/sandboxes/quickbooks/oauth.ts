// Intuit's OAuth 2.0 authorization server as intuit-oauth uses it: the consent redirect carrying
// `code`, `state` and `realmId`; the bearer token endpoint (authorization_code and refresh_token
// grants, HTTP Basic client authentication); revocation; and token validation for the API.
// Refresh tokens rotate: each refresh returns a new one and the presented one stops working.
import { json } from '../core/http-fake';
import type { FakeRequest, FakeResponse } from '../core/http-fake';
import { randomAlnum, randomDigits } from '../core/random';
import { authorizeParams, consentPage } from '../core/consent-page';

export interface QboOAuthClient {
  clientId: string;
  clientSecret: string;
  redirectUris: readonly string[];
}

export interface ConsentDecision {
  realmId?: string;
  deny?: boolean;
}

export interface QboOAuthConfig {
  clients: readonly QboOAuthClient[];
  realmIds: () => readonly string[];
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  refreshTokenHardTtlSeconds: number;
  authorizationCodeTtlSeconds: number;
  rotateRefreshTokens: boolean;
  /** Without a queued decision, show a consent page (a sandbox for people) instead of approving at once. */
  consentPage: boolean;
  now: () => number;
}

interface Grant {
  id: string;
  clientId: string;
  realmId: string;
  scopes: string[];
  createdAt: number;
  revoked: boolean;
}

interface AuthCode {
  grant: Grant;
  redirectUri: string;
  expiresAt: number;
  used: boolean;
}

interface TokenRec {
  grant: Grant;
  expiresAt: number;
  /** Refresh tokens only: set once exchanged, after which the token is dead. */
  used: boolean;
}

const KNOWN_SCOPES = new Set([
  'com.intuit.quickbooks.accounting',
  'com.intuit.quickbooks.payment',
  'openid',
  'profile',
  'email',
  'phone',
  'address',
]);

export type AccessCheck =
  | { ok: true; realmId: string; scopes: readonly string[]; token: string }
  | { ok: false; detail: string };

function oauthError(status: number, error: string, description?: string): FakeResponse {
  return json(status, description ? { error_description: description, error } : { error }, { 'cache-control': 'no-store' });
}

function htmlError(text: string): FakeResponse {
  return { status: 400, headers: { 'content-type': 'text/html;charset=UTF-8' }, body: `<html><body><h1>Error</h1><p>${text}</p></body></html>` };
}

function redirectTo(uri: string, params: Record<string, string>): FakeResponse {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return { status: 302, headers: { location: u.toString(), 'content-type': 'text/html;charset=UTF-8' }, body: '' };
}

export class QboOAuth {
  readonly #cfg: QboOAuthConfig;
  readonly #codes = new Map<string, AuthCode>();
  readonly #access = new Map<string, TokenRec>();
  readonly #refresh = new Map<string, TokenRec>();
  readonly #consents: ConsentDecision[] = [];
  #grantSeq = 0;

  constructor(cfg: QboOAuthConfig) {
    this.#cfg = cfg;
  }

  /** Queues how the next person reaching the consent page answers (realm choice or denial). */
  queueConsent(decision: ConsentDecision): void {
    this.#consents.push(decision);
  }

  #client(id: string | undefined): QboOAuthClient | undefined {
    return this.#cfg.clients.find((c) => c.clientId === id);
  }

  #basicClient(req: FakeRequest): QboOAuthClient | undefined {
    const m = /^Basic\s+(\S+)$/i.exec(req.header('authorization') ?? '');
    if (!m) return undefined;
    const decoded = Buffer.from(m[1] as string, 'base64').toString();
    const i = decoded.indexOf(':');
    const client = this.#client(decoded.slice(0, i));
    return client && client.clientSecret === decoded.slice(i + 1) ? client : undefined;
  }

  /** GET: the consent redirect (or page); POST: the consent page's Approve or Deny. */
  authorize(req: FakeRequest): FakeResponse {
    const q = authorizeParams(req);
    const client = this.#client(q.get('client_id') ?? undefined);
    if (!client) return htmlError('The client_id is invalid.');
    const redirectUri = q.get('redirect_uri') ?? '';
    // An unregistered redirect_uri is never redirected to (RFC 6749 §4.1.2.1).
    if (!client.redirectUris.includes(redirectUri)) return htmlError('The redirect_uri is invalid for this app.');
    const state = q.get('state');
    const withState = (p: Record<string, string>) => (state === null ? p : { ...p, state });
    if (q.get('response_type') !== 'code') return redirectTo(redirectUri, withState({ error: 'unsupported_response_type' }));
    const scopes = (q.get('scope') ?? '').split(' ').filter(Boolean);
    if (scopes.length === 0 || scopes.some((s) => !KNOWN_SCOPES.has(s))) return redirectTo(redirectUri, withState({ error: 'invalid_scope' }));
    let decision: ConsentDecision;
    if (req.method === 'POST') {
      decision = q.get('decision') === 'approve' ? { realmId: q.get('realm_id') ?? undefined } : { deny: true };
    } else {
      const queued = this.#consents.shift();
      if (!queued && this.#cfg.consentPage) {
        const realmId = this.#cfg.realmIds()[0] ?? '';
        const params = new URLSearchParams(q);
        params.set('realm_id', realmId);
        return consentPage({ provider: 'QuickBooks Online sandbox', action: req.path, params, account: `company ${realmId}`, redirectUri, scopes });
      }
      decision = queued ?? {};
    }
    if (decision.deny) return redirectTo(redirectUri, withState({ error: 'access_denied' }));
    const realmId = decision.realmId ?? this.#cfg.realmIds()[0];
    if (req.method === 'POST' && !this.#cfg.realmIds().includes(realmId ?? '')) return htmlError('The company chosen is not one of this sandbox.');
    if (!realmId || !this.#cfg.realmIds().includes(realmId)) throw new Error(`consent for unknown realm ${String(realmId)}`);
    const grant: Grant = { id: `g${++this.#grantSeq}`, clientId: client.clientId, realmId, scopes, createdAt: this.#cfg.now(), revoked: false };
    const code = `AB11${Math.floor(this.#cfg.now() / 1000)}${randomAlnum(34)}`;
    this.#codes.set(code, { grant, redirectUri, expiresAt: this.#cfg.now() + this.#cfg.authorizationCodeTtlSeconds * 1000, used: false });
    return redirectTo(redirectUri, withState({ code, realmId }));
  }

  #issue(grant: Grant, req: FakeRequest): FakeResponse {
    const now = this.#cfg.now();
    const access = `eyJlbmMiOiJBMTI4Q0JDLUhTMjU2IiwiYWxnIjoiZGlyIn0..${randomAlnum(22)}.${randomAlnum(180)}.${randomAlnum(22)}`;
    const refresh = `RT1-${randomDigits(3)}-H0-${Math.floor(now / 1000) + this.#cfg.refreshTokenTtlSeconds}${randomAlnum(20).toLowerCase()}`;
    this.#access.set(access, { grant, expiresAt: now + this.#cfg.accessTokenTtlSeconds * 1000, used: false });
    this.#refresh.set(refresh, { grant, expiresAt: now + this.#cfg.refreshTokenTtlSeconds * 1000, used: false });
    const body: Record<string, unknown> = {
      token_type: 'bearer',
      access_token: access,
      expires_in: this.#cfg.accessTokenTtlSeconds,
      refresh_token: refresh,
      x_refresh_token_expires_in: this.#cfg.refreshTokenTtlSeconds,
    };
    if (req.header('x-include-refresh-token-hard-expires-in') === 'true') {
      body['x_refresh_token_hard_expires_in'] = Math.max(0, Math.floor((grant.createdAt + this.#cfg.refreshTokenHardTtlSeconds * 1000 - now) / 1000));
    }
    return json(200, body, { 'cache-control': 'no-store', pragma: 'no-cache' });
  }

  token(req: FakeRequest): FakeResponse {
    const client = this.#basicClient(req);
    if (!client) return oauthError(401, 'invalid_client');
    const form = new URLSearchParams(req.body.toString('utf8'));
    const grantType = form.get('grant_type');
    const now = this.#cfg.now();
    if (grantType === 'authorization_code') {
      const code = this.#codes.get(form.get('code') ?? '');
      if (!code || code.used || code.expiresAt <= now || code.grant.clientId !== client.clientId) {
        return oauthError(400, 'invalid_grant', 'Invalid authorization code');
      }
      if (form.get('redirect_uri') !== code.redirectUri) return oauthError(400, 'invalid_grant', 'Invalid redirect_uri');
      code.used = true;
      return this.#issue(code.grant, req);
    }
    if (grantType === 'refresh_token') {
      const presented = form.get('refresh_token') ?? '';
      const rec = this.#refresh.get(presented);
      if (!rec || rec.used || rec.grant.revoked || rec.expiresAt <= now || rec.grant.clientId !== client.clientId) {
        return oauthError(400, 'invalid_grant', 'Incorrect or invalid refresh token');
      }
      if (!this.#cfg.rotateRefreshTokens) {
        const res = this.#issue(rec.grant, req);
        // Without rotation the same refresh token keeps working; hand it back unchanged.
        const body = JSON.parse(String(res.body)) as Record<string, unknown>;
        this.#refresh.delete(body['refresh_token'] as string);
        body['refresh_token'] = presented;
        return { ...res, body: JSON.stringify(body) };
      }
      rec.used = true;
      return this.#issue(rec.grant, req);
    }
    return oauthError(400, 'unsupported_grant_type');
  }

  revoke(req: FakeRequest): FakeResponse {
    const client = this.#basicClient(req);
    if (!client) return oauthError(401, 'invalid_client');
    const type = req.header('content-type') ?? '';
    const raw = req.body.toString('utf8');
    let token: string | undefined;
    if (type.includes('json')) {
      try {
        token = (JSON.parse(raw) as { token?: string }).token;
      } catch {
        return oauthError(400, 'invalid_request');
      }
    } else {
      token = new URLSearchParams(raw).get('token') ?? undefined;
    }
    if (!token) return oauthError(400, 'invalid_request');
    const rec = this.#refresh.get(token) ?? this.#access.get(token);
    // Revoking either token ends the whole connection; unknown tokens still get 200 (RFC 7009).
    if (rec && rec.grant.clientId === client.clientId) rec.grant.revoked = true;
    return { status: 200, headers: { 'content-type': 'application/json;charset=UTF-8' }, body: '' };
  }

  checkBearer(req: FakeRequest): AccessCheck {
    const m = /^Bearer\s+(\S+)$/i.exec(req.header('authorization') ?? '');
    if (!m) return { ok: false, detail: 'Authorization header missing or not a bearer token' };
    const token = m[1] as string;
    const rec = this.#access.get(token);
    if (!rec) return { ok: false, detail: token.length < 20 ? 'Malformed bearer token: too short or too long' : 'Invalid bearer token' };
    if (rec.grant.revoked) return { ok: false, detail: `Token revoked: ${token.slice(0, 10)}` };
    if (rec.expiresAt <= this.#cfg.now()) return { ok: false, detail: `Token expired: ${token.slice(0, 10)}` };
    return { ok: true, realmId: rec.grant.realmId, scopes: rec.grant.scopes, token };
  }

  /** Connections (grants) for inspection: which realm each consent bound and whether it was revoked. */
  grants(): Array<{ clientId: string; realmId: string; scopes: readonly string[]; revoked: boolean }> {
    const seen = new Map<string, Grant>();
    for (const r of [...this.#refresh.values(), ...this.#access.values()]) seen.set(r.grant.id, r.grant);
    return [...seen.values()].map((g) => ({ clientId: g.clientId, realmId: g.realmId, scopes: g.scopes, revoked: g.revoked }));
  }

  /** Live (usable) refresh tokens, e.g. to assert that rotation left exactly one. */
  liveRefreshTokens(): string[] {
    const now = this.#cfg.now();
    return [...this.#refresh.entries()].filter(([, r]) => !r.used && !r.grant.revoked && r.expiresAt > now).map(([t]) => t);
  }
}

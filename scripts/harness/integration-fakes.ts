import { randomBytes } from 'node:crypto';
import { QuickBooksFake, DEFAULT_QBO_CLIENT, type QuickBooksFakeOptions } from '../sandboxes/quickbooks-fake';
import { SalesforceFake, DEFAULT_SF_APP, type SalesforceFakeOptions } from '../sandboxes/salesforce-fake';
import type { ApiHarness } from './api-harness';
import { createOAuthProviders } from '../../infra/integrations/providers';
import { CredentialCipher } from '../../db/security/credential-cipher';
import type { IntegrationDependencies } from '../../activities/integrations';

/** The public base URL the tests' API builds redirect URIs on; only ever parsed, never fetched. */
export const PUBLIC_BASE_URL = 'http://localhost:3000';
export const callbackUrl = (slug: 'accounting' | 'crm') => `${PUBLIC_BASE_URL}/api/v1/integrations/${slug}/callback`;

export interface IntegrationFakes {
  qbo: QuickBooksFake;
  sf: SalesforceFake;
  /** Settings that point the API and the worker at the fakes. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Both OAuth providers as local fakes, their apps registered with our callback URLs. */
export async function startIntegrationFakes(options: { qbo?: QuickBooksFakeOptions; sf?: SalesforceFakeOptions } = {}): Promise<IntegrationFakes> {
  const qbo = new QuickBooksFake({ clients: [{ ...DEFAULT_QBO_CLIENT, redirectUris: [callbackUrl('accounting')] }], ...options.qbo });
  const sf = new SalesforceFake({ apps: [{ ...DEFAULT_SF_APP, redirectUris: [callbackUrl('crm')] }], ...options.sf });
  const [q, s] = await Promise.all([qbo.start(), sf.start()]);
  return {
    qbo,
    sf,
    env: {
      ACCOUNTING_CLIENT_ID: DEFAULT_QBO_CLIENT.clientId,
      ACCOUNTING_CLIENT_SECRET: DEFAULT_QBO_CLIENT.clientSecret,
      ACCOUNTING_API_BASE_URL: q.url,
      CRM_CLIENT_ID: DEFAULT_SF_APP.clientId,
      CRM_CLIENT_SECRET: DEFAULT_SF_APP.clientSecret,
      CRM_LOGIN_URL: s.url,
      CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      PUBLIC_BASE_URL,
    },
    close: async () => {
      await Promise.all([q.close(), s.close()]);
    },
  };
}

/** Whatever sends requests to the API: the in-process harness, or a client of an API process. */
export type ApiClient = Pick<ApiHarness, 'request'>;

/** POST connect; answers the authorize URL (throwing unless 200). */
export async function connectUrl(api: ApiClient, token: string, slug: 'accounting' | 'crm'): Promise<string> {
  const res = await api.request(`/api/v1/integrations/${slug}/connect`, { method: 'POST', token });
  if (res.status !== 200) throw new Error(`connect ${slug} answered ${res.status} ${await res.text()}`);
  return ((await res.json()) as { authorize_url: string }).authorize_url;
}

/** What a browser does at the provider: follow the authorize URL; answers where it is sent back. */
export async function visitConsent(authorizeUrl: string): Promise<URL> {
  const res = await fetch(authorizeUrl, { redirect: 'manual' });
  if (res.status !== 302) throw new Error(`the consent page answered ${res.status}, not a redirect`);
  return new URL(res.headers.get('location')!);
}

/** The browser arriving back at our callback (the path and query of the redirect, on the test API). */
export function followCallback(api: ApiClient, location: URL): Promise<Response> {
  if (!new RegExp(`^${PUBLIC_BASE_URL}/api/v1/integrations/[^/]+/callback$`).test(`${location.origin}${location.pathname}`)) throw new Error(`redirected to ${location.origin}${location.pathname}, not our callback`);
  return api.request(`${location.pathname}${location.search}`);
}

/** The whole consent: connect, consent at the fake (after queueing the decision), callback. */
export async function consent(api: ApiClient, token: string, slug: 'accounting' | 'crm', queue?: () => void): Promise<Response> {
  const url = await connectUrl(api, token, slug);
  queue?.();
  return followCallback(api, await visitConsent(url));
}

/** The worker's integration dependencies, from the same settings as the API (as worker/main.ts builds them). */
export function workerIntegrations(api: ApiHarness): IntegrationDependencies {
  return { providers: createOAuthProviders(api.settings), cipher: CredentialCipher.fromSettings(api.settings) };
}

/** The stored (decrypted) tokens of a connection, read as the owner: what only the key holder can see. */
export async function storedTokens(owner: { query: (sql: string, params: unknown[]) => Promise<{ rows: Record<string, string | null>[] }> }, env: Record<string, string>, organizationId: string, provider: 'ACCOUNTING' | 'CRM') {
  const { rows } = await owner.query('select access_token_ciphertext, refresh_token_ciphertext, encryption_key_id from integration_connections where organization_id = $1 and provider = $2', [organizationId, provider]);
  const row = rows[0];
  if (!row?.access_token_ciphertext || !row.refresh_token_ciphertext || !row.encryption_key_id) return undefined;
  const cipher = new CredentialCipher(env.CREDENTIAL_ENCRYPTION_KEY!);
  const open = (ciphertext: string, field: string) => cipher.decrypt({ ciphertext, keyId: row.encryption_key_id! }, `integration_connections/${organizationId}/${provider}/${field}`);
  return { accessToken: open(row.access_token_ciphertext, 'access_token'), refreshToken: open(row.refresh_token_ciphertext, 'refresh_token') };
}

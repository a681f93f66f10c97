import type { Settings } from '../../runtime/settings';
import { CONNECTORS, missingSettings } from '../connectors';
import { slugOfProvider, type OAuthProviderName } from './oauth-provider';
import { QuickBooksOAuth } from './quickbooks';
import { SalesforceOAuth } from './salesforce';

export * from './oauth-provider';
export { QuickBooksOAuth } from './quickbooks';
export { SalesforceOAuth, SALESFORCE_API_VERSION } from './salesforce';

/** Each provider by its concrete client, so a leg gets the API it needs without testing classes. */
export interface OAuthProviders {
  ACCOUNTING?: QuickBooksOAuth;
  CRM?: SalesforceOAuth;
}

type ProviderSettings = Pick<
  Settings,
  | 'PORT' | 'PUBLIC_BASE_URL' | 'ACCOUNTING_CLIENT_ID' | 'ACCOUNTING_CLIENT_SECRET' | 'ACCOUNTING_ENVIRONMENT' | 'ACCOUNTING_API_BASE_URL'
  | 'CRM_CLIENT_ID' | 'CRM_CLIENT_SECRET' | 'CRM_LOGIN_URL' | 'CRM_SESSION_TIMEOUT_SECONDS' | 'CREDENTIAL_ENCRYPTION_KEY'
>;

/** Where the provider sends the browser back: registered as-is in each provider's app settings. */
export function redirectUri(settings: Pick<Settings, 'PORT' | 'PUBLIC_BASE_URL'>, provider: OAuthProviderName): string {
  const base = (settings.PUBLIC_BASE_URL ?? `http://localhost:${settings.PORT}`).replace(/\/+$/, '');
  return `${base}/api/v1/integrations/${slugOfProvider(provider)}/callback`;
}

/**
 * The providers this deployment can connect: those whose client credentials and the credential
 * encryption key are all set (D9's readiness, from the registry). Built once per process, by
 * the API and the worker alike.
 */
export function createOAuthProviders(settings: ProviderSettings): OAuthProviders {
  const ready = (slug: 'accounting' | 'crm') => missingSettings(CONNECTORS.find((c) => c.slug === slug)!, settings as Settings).length === 0;
  const providers: OAuthProviders = {};
  if (ready('accounting')) {
    providers.ACCOUNTING = new QuickBooksOAuth({
      clientId: settings.ACCOUNTING_CLIENT_ID!,
      clientSecret: settings.ACCOUNTING_CLIENT_SECRET!,
      redirectUri: redirectUri(settings, 'ACCOUNTING'),
      environment: settings.ACCOUNTING_ENVIRONMENT,
      baseUrl: settings.ACCOUNTING_API_BASE_URL,
    });
  }
  if (ready('crm')) {
    providers.CRM = new SalesforceOAuth({
      clientId: settings.CRM_CLIENT_ID!,
      clientSecret: settings.CRM_CLIENT_SECRET!,
      redirectUri: redirectUri(settings, 'CRM'),
      loginUrl: settings.CRM_LOGIN_URL,
      sessionSeconds: settings.CRM_SESSION_TIMEOUT_SECONDS,
    });
  }
  return providers;
}

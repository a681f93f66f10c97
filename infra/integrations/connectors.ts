import type { Settings } from '../runtime/settings';

export const PROVIDER_SLUGS = ['payments', 'accounting', 'crm'] as const;
export type ProviderSlug = (typeof PROVIDER_SLUGS)[number];
export type Readiness = 'operator_credentials_missing' | 'awaiting_tenant_consent' | 'platform_account_live';

export interface ConnectorDefinition {
  slug: ProviderSlug;
  display_name: string;
  /** Which settings the platform needs before any tenant can use the connector (D9). */
  requiredSettings: readonly (keyof Settings)[];
  /** Readiness once those settings are present. */
  readyAs: Exclude<Readiness, 'operator_credentials_missing'>;
}

/** D7 and D9, in registry order. */
export const CONNECTORS: readonly ConnectorDefinition[] = [
  { slug: 'payments', display_name: 'Payments', requiredSettings: ['PAYMENTS_SECRET_KEY'], readyAs: 'platform_account_live' },
  {
    slug: 'accounting',
    display_name: 'Accounting',
    requiredSettings: ['ACCOUNTING_CLIENT_ID', 'ACCOUNTING_CLIENT_SECRET', 'CREDENTIAL_ENCRYPTION_KEY'],
    readyAs: 'awaiting_tenant_consent',
  },
  {
    slug: 'crm',
    display_name: 'CRM',
    requiredSettings: ['CRM_CLIENT_ID', 'CRM_CLIENT_SECRET', 'CREDENTIAL_ENCRYPTION_KEY'],
    readyAs: 'awaiting_tenant_consent',
  },
];

const SUMMARIES: Record<Readiness, string> = {
  operator_credentials_missing: 'The platform operator has not configured this provider yet; no workspace can use it.',
  awaiting_tenant_consent: 'Configured on the platform; each workspace connects its own account.',
  platform_account_live: "Configured; payments run through the platform's own account.",
};

export function missingSettings(connector: ConnectorDefinition, settings: Settings): (keyof Settings)[] {
  return connector.requiredSettings.filter((name) => !settings[name]);
}

// npm start's local stand-ins (scripts/sandboxes) are ready like real providers, and say so.
const SANDBOX = 'Local sandbox started by npm start, not the real provider: nothing leaves this machine, and its state is forgotten when the stack stops.';
const SANDBOX_SUMMARIES: Record<Exclude<Readiness, 'operator_credentials_missing'>, string> = {
  awaiting_tenant_consent: `${SANDBOX} Each workspace connects on the sandbox's own consent page.`,
  platform_account_live: `${SANDBOX} Payments run through the platform's sandbox account.`,
};

export function readinessOf(connector: ConnectorDefinition, settings: Settings): { readiness: Readiness; summary: string; sandbox: boolean } {
  if (missingSettings(connector, settings).length > 0) return { readiness: 'operator_credentials_missing', summary: SUMMARIES.operator_credentials_missing, sandbox: false };
  const readiness = connector.readyAs;
  const sandbox = settings.PROVIDER_SANDBOXES.includes(connector.slug);
  return { readiness, summary: sandbox ? SANDBOX_SUMMARIES[readiness] : SUMMARIES[readiness], sandbox };
}

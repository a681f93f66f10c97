// npm start's provider sandboxes: the same faithful fakes the tests use, run on loopback so that
// a fresh clone can approve, invoice, check out and connect without any provider account. Each
// provider whose keys are not set gets one; setting its real keys (D8) replaces it, one provider
// at a time. Production never runs them. Their state lives in this process's memory: it is
// forgotten when the stack stops (the banner and the README say so).
import { randomBytes } from 'node:crypto';
import { StripeFake } from './stripe-fake';
import { QuickBooksFake, DEFAULT_QBO_CLIENT } from './quickbooks-fake';
import { SalesforceFake, DEFAULT_SF_APP } from './salesforce-fake';
import type { StartedFake } from './core/http-fake';

export type SandboxSlug = 'payments' | 'accounting' | 'crm';
export const SANDBOX_SLUGS: readonly SandboxSlug[] = ['payments', 'accounting', 'crm'];

/** The sandbox payments account's key: a test-mode key, meaningless anywhere but the sandbox. */
export const SANDBOX_PAYMENTS_KEY = 'sk_test_ShadeOfficeLocalSandbox';

/** The settings whose presence means "use the real provider" (D8). */
const REAL_PROVIDER_SETTINGS: Record<SandboxSlug, readonly string[]> = {
  payments: ['PAYMENTS_SECRET_KEY'],
  accounting: ['ACCOUNTING_CLIENT_ID', 'ACCOUNTING_CLIENT_SECRET'],
  crm: ['CRM_CLIENT_ID', 'CRM_CLIENT_SECRET'],
};

/** Providers that get a sandbox: each one none of whose keys is set; none in production. */
export function sandboxesWanted(env: NodeJS.ProcessEnv): SandboxSlug[] {
  if (env.NODE_ENV === 'production') return [];
  return SANDBOX_SLUGS.filter((slug) => REAL_PROVIDER_SETTINGS[slug].every((name) => !env[name]));
}

export interface SandboxEndpoint {
  slug: SandboxSlug;
  url: string;
  /** What a person is looking at, for the start banner. */
  label: string;
}

export interface RunningSandboxes {
  /** Settings that point the API and the worker at the sandboxes (and label them, PROVIDER_SANDBOXES). */
  env: Record<string, string>;
  endpoints: SandboxEndpoint[];
  close(): Promise<void>;
}

export interface SandboxOptions {
  slugs: readonly SandboxSlug[];
  /** Our OAuth callback for a provider, registered as the sandbox app's only redirect URI. */
  redirectUri: (provider: 'ACCOUNTING' | 'CRM') => string;
  /** payments on this port, accounting on the next, crm on the one after; 0: ephemeral ports. */
  basePort: number;
  /** Our payments webhook, where the payments sandbox delivers its signed events (D24). */
  paymentsWebhookUrl: string;
  /**
   * The operator's PAYMENTS_WEBHOOK_SECRET, when set: the sandbox signs with it, and hands out no
   * secret of its own (a setting the operator gives always wins). Unset: a secret of this run.
   */
  paymentsWebhookSecret?: string | undefined;
}

/** The events a paying customer causes, delivered by the payments sandbox as the provider does (D24). */
export const SANDBOX_WEBHOOK_EVENTS = ['invoice.paid', 'checkout.session.completed'] as const;

async function listen(start: (port: number) => Promise<StartedFake>, port: number, slug: SandboxSlug): Promise<StartedFake> {
  try {
    return await start(port);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(`the ${slug} sandbox cannot listen on 127.0.0.1:${port}, which is taken; set PROVIDER_SANDBOX_PORT to another base port (it and the next two are used)`);
    }
    throw error;
  }
}

export async function startSandboxes(options: SandboxOptions): Promise<RunningSandboxes> {
  const env: Record<string, string> = {};
  const endpoints: SandboxEndpoint[] = [];
  const running: StartedFake[] = [];
  const portOf = (slug: SandboxSlug) => (options.basePort === 0 ? 0 : options.basePort + SANDBOX_SLUGS.indexOf(slug));
  try {
    if (options.slugs.includes('payments')) {
      // D24: its own hosted invoice and Checkout pages on loopback, where a test card pays; the
      // payment is then delivered, signed, to our payments webhook: with the operator's secret
      // when one is set (left in place, whether given as a value or a file), else one of this run.
      const stripe = new StripeFake({ apiKeys: [SANDBOX_PAYMENTS_KEY], hostedPages: true });
      const started = await listen((port) => stripe.start(port), portOf('payments'), 'payments');
      running.push(started);
      const operatorSecret = options.paymentsWebhookSecret || undefined;
      const webhookSecret = operatorSecret ?? `whsec_${randomBytes(24).toString('base64url')}`;
      stripe.addWebhookEndpoint({ url: options.paymentsWebhookUrl, secret: webhookSecret, enabledEvents: SANDBOX_WEBHOOK_EVENTS });
      env.PAYMENTS_SECRET_KEY = SANDBOX_PAYMENTS_KEY;
      env.PAYMENTS_API_BASE_URL = started.url;
      if (!operatorSecret) env.PAYMENTS_WEBHOOK_SECRET = webhookSecret;
      endpoints.push({ slug: 'payments', url: started.url, label: 'Stripe API sandbox (customers, invoices, Checkout; hosted pages a test card pays)' });
    }
    if (options.slugs.includes('accounting')) {
      const client = { ...DEFAULT_QBO_CLIENT, redirectUris: [options.redirectUri('ACCOUNTING')] };
      const qbo = new QuickBooksFake({ clients: [client], consentPage: true });
      const started = await listen((port) => qbo.start(port), portOf('accounting'), 'accounting');
      running.push(started);
      Object.assign(env, {
        ACCOUNTING_CLIENT_ID: client.clientId,
        ACCOUNTING_CLIENT_SECRET: client.clientSecret,
        ACCOUNTING_API_BASE_URL: started.url,
        ACCOUNTING_ENVIRONMENT: 'sandbox',
      });
      endpoints.push({ slug: 'accounting', url: started.url, label: 'QuickBooks Online sandbox (consent page, accounting API)' });
    }
    if (options.slugs.includes('crm')) {
      const app = { ...DEFAULT_SF_APP, redirectUris: [options.redirectUri('CRM')] };
      const sf = new SalesforceFake({ apps: [app], orgs: [{ users: [{ username: 'admin@crm-sandbox.test', displayName: 'Sandbox Admin' }] }], consentPage: true });
      const started = await listen((port) => sf.start(port), portOf('crm'), 'crm');
      running.push(started);
      Object.assign(env, { CRM_CLIENT_ID: app.clientId, CRM_CLIENT_SECRET: app.clientSecret, CRM_LOGIN_URL: started.url });
      endpoints.push({ slug: 'crm', url: started.url, label: 'Salesforce sandbox (consent page, REST API)' });
    }
  } catch (error) {
    await Promise.allSettled(running.map((fake) => fake.close()));
    throw error;
  }
  env.PROVIDER_SANDBOXES = endpoints.map((e) => e.slug).join(',');
  return { env, endpoints, close: async () => void (await Promise.allSettled(running.map((fake) => fake.close()))) };
}

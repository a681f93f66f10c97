import Stripe from 'stripe';

export interface PaymentsSettings {
  secretKey: string;
  /** PAYMENTS_API_BASE_URL: a local fake or stripe-mock instead of the provider's own host. */
  baseUrl?: string | undefined;
}

/**
 * The payments provider's client (D7: Stripe). The library's own network retries are off:
 * retries belong to the Temporal activity retry policy, where they are counted and visible.
 */
export function createStripeClient(settings: PaymentsSettings): Stripe {
  const base = settings.baseUrl ? new URL(settings.baseUrl) : undefined;
  return new Stripe(settings.secretKey, {
    maxNetworkRetries: 0,
    timeout: 20_000,
    appInfo: { name: 'shade-office' },
    ...(base
      ? { host: base.hostname, port: base.port || (base.protocol === 'https:' ? 443 : 80), protocol: base.protocol === 'http:' ? 'http' : 'https' }
      : {}),
  });
}

import type { EntityManager } from '@mikro-orm/postgresql';
import type { CredentialCipher } from '../../db/security/credential-cipher';
import type { Resolver } from './address-policy';
import { attemptWebhookDelivery, finishWebhookDelivery } from './delivery-attempt';

/** What outbound deliveries need beyond the database (D6, D8). */
export interface WebhookDependencies {
  cipher: CredentialCipher | undefined;
  allowPrivateNetworks: boolean;
  /** OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK (development): loopback receivers only. */
  allowLoopback?: boolean | undefined;
  lookup?: Resolver | undefined;
  timeoutMs?: number | undefined;
}

export function createWebhookActivities(deps: { em: EntityManager; webhooks: WebhookDependencies }) {
  const delivery = { em: deps.em, ...deps.webhooks };
  return {
    attemptWebhookDelivery: (input: { organizationId: string; deliveryId: string; attempt: number }) => attemptWebhookDelivery(delivery, input),
    finishWebhookDelivery: (input: { organizationId: string; deliveryId: string; status: 'failed' | 'missed'; error?: string }) => finishWebhookDelivery(deps.em, input),
  };
}

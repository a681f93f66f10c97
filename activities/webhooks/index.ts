import type { EntityManager } from '@mikro-orm/postgresql';
import type { CredentialCipher } from '../../api/security/credential-cipher';
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

export function createWebhookActivities(deps: { em: EntityManager; webhooks?: WebhookDependencies | undefined }) {
  const delivery = { em: deps.em, cipher: deps.webhooks?.cipher, allowPrivateNetworks: deps.webhooks?.allowPrivateNetworks ?? false, allowLoopback: deps.webhooks?.allowLoopback ?? false, lookup: deps.webhooks?.lookup, timeoutMs: deps.webhooks?.timeoutMs };
  return {
    attemptWebhookDelivery: (input: { organizationId: string; deliveryId: string; attempt: number }) => attemptWebhookDelivery(delivery, input),
    finishWebhookDelivery: (input: { organizationId: string; deliveryId: string; status: 'failed' | 'missed' }) => finishWebhookDelivery(deps.em, input),
  };
}

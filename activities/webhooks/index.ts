import { Context } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { CredentialCipher } from '../../db/security/credential-cipher';
import type { Mailer } from '../../infra/email/mailer';
import type { Resolver } from '../../infra/webhooks/address-policy';
import { deliverWebhookBatch, type BatchInput } from './delivery-batch';
import { sendEndpointDisabledNotice, type DisabledNoticeInput } from './disabled-notice';

/** What outbound deliveries need beyond the database (D6, D8, D13). */
export interface WebhookDependencies {
  cipher: CredentialCipher | undefined;
  allowPrivateNetworks: boolean;
  /** OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK (development): loopback receivers only. */
  allowLoopback?: boolean | undefined;
  lookup?: Resolver | undefined;
  timeoutMs?: number | undefined;
  /** Multiplies each format's response window (D13); tests shorten the 300-second one. */
  responseWindowScale?: number | undefined;
  /** SMTP (SMTP_URL) for the notice of a disabled endpoint (D13); absent: a warning instead. */
  mailer?: Mailer | undefined;
  /** PUBLIC_BASE_URL, for the addresses that notice gives. */
  publicBaseUrl?: string | undefined;
}

export function createWebhookActivities(deps: { em: EntityManager; logger?: Logger | undefined; webhooks: WebhookDependencies }) {
  const delivery = { em: deps.em, ...deps.webhooks };
  const notices = { em: deps.em, mailer: deps.webhooks.mailer, baseUrl: deps.webhooks.publicBaseUrl ?? 'http://localhost:3000', logger: deps.logger };
  return {
    // Heartbeats while the batch's requests are out: a worker that dies mid-batch is noticed
    // within the heartbeat timeout, and the retried batch takes back its rows (at-least-once).
    deliverWebhookBatch: (input: BatchInput) => {
      const context = Context.current();
      return deliverWebhookBatch({ ...delivery, heartbeat: () => context.heartbeat() }, input);
    },
    sendEndpointDisabledNotice: (input: DisabledNoticeInput) => sendEndpointDisabledNotice(notices, input),
  };
}

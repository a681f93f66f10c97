import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { inTenant } from '../../db/tenant-scope';
import { currentOrganization, technicalContact } from '../../db/organizations';
import { claimDisabledNotice, endpointForNotice, latestFailedAttempts } from '../../db/webhooks/notices';
import type { Mailer } from '../../infra/email/mailer';
import { composeDisabledNotice, disabledNoticeMessageId } from './disabled-notice-message';

export interface DisabledNoticeDeps {
  em: EntityManager;
  /** Absent when SMTP_URL is not set: nothing is sent, and a warning says so. */
  mailer?: Mailer | undefined;
  /** PUBLIC_BASE_URL, for the page and API addresses the mail gives. */
  baseUrl: string;
  logger?: Logger | undefined;
}

export interface DisabledNoticeInput {
  organizationId: string;
  endpointId: string;
  /** ISO time the endpoint was disabled: with the endpoint, the key of the one email. */
  disabledAt: string;
}

export type DisabledNoticeResult =
  | { status: 'sent'; recipient: string }
  | { status: 'already_sent' | 'no_longer_disabled' | 'no_contact' | 'mail_not_configured' };

/** How many of the latest failures the mail lists. */
export const NOTICE_FAILURES_LISTED = 5;

/**
 * D13: one email to the tenant's technical contact when an endpoint is disabled, never one per
 * attempt. Idempotent per disabling: the notice row (endpoint, disabled_at) is claimed in the
 * same transaction that sends, so a retry after a sent mail finds it claimed, and a failed send
 * rolls the claim back for the retry (Temporal retries this activity). A crash between the SMTP
 * server's acceptance and the commit can send it twice, with the same Message-ID.
 */
export async function sendEndpointDisabledNotice(deps: DisabledNoticeDeps, input: DisabledNoticeInput): Promise<DisabledNoticeResult> {
  const disabledAt = new Date(input.disabledAt);
  return inTenant(deps.em, input.organizationId, async (tx) => {
    const endpoint = await endpointForNotice(tx, input.endpointId);
    // Re-enabled (or deleted, or disabled again later) before the notice ran: that disabling is over.
    if (!endpoint || endpoint.status !== 'disabled' || endpoint.disabled_at === null || new Date(endpoint.disabled_at).getTime() !== disabledAt.getTime()) {
      return { status: 'no_longer_disabled' };
    }
    const contact = await technicalContact(tx);
    const workspace = await currentOrganization(tx);
    if (!contact?.email || !workspace) return { status: 'no_contact' };
    if (!deps.mailer) {
      deps.logger?.warn({ endpoint_id: endpoint.id, organization_id: input.organizationId }, 'webhook endpoint disabled; no SMTP_URL is set, so its technical contact was not emailed');
      return { status: 'mail_not_configured' };
    }
    const messageId = disabledNoticeMessageId(endpoint.id, disabledAt);
    if (!(await claimDisabledNotice(tx, { endpointId: endpoint.id, disabledAt, recipient: contact.email, messageId }))) return { status: 'already_sent' };
    const failures = await latestFailedAttempts(tx, endpoint.id, NOTICE_FAILURES_LISTED);
    await deps.mailer.send(composeDisabledNotice({ to: contact.email, workspace, endpoint, disabledAt, failures, baseUrl: deps.baseUrl }));
    return { status: 'sent', recipient: contact.email };
  });
}

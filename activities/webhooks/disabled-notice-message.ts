import type { OutgoingMail } from '../../infra/email/mailer';
import type { DisabledEndpointRow, FailedAttemptRow } from '../../db/webhooks/notices';

export interface DisabledNoticeFacts {
  to: string;
  workspace: { name: string; subdomain: string };
  endpoint: DisabledEndpointRow;
  disabledAt: Date;
  /** Newest first. */
  failures: readonly FailedAttemptRow[];
  /** Where people reach this deployment (PUBLIC_BASE_URL), for the page and the API. */
  baseUrl: string;
}

/** One Message-ID per endpoint and disabling, so that a resend is recognisably the same mail. */
export const disabledNoticeMessageId = (endpointId: string, disabledAt: Date) => `<webhook-endpoint-disabled.${endpointId}.${disabledAt.getTime()}@shade-office>`;

const failureLine = (f: FailedAttemptRow) =>
  `  ${new Date(f.attempted_at).toISOString()}  ${f.event} (event ${f.event_id}), attempt ${f.attempt}: ${f.error ?? (f.response_status === null ? 'no response' : `HTTP ${f.response_status}`)}`;

/**
 * D13: the one email that says an endpoint was disabled: which endpoint, the failures that led
 * there, and how to re-enable it (which also delivers what it missed). Plain text: it is read by
 * people fixing a server, often in a terminal or a ticket.
 */
export function composeDisabledNotice(facts: DisabledNoticeFacts): OutgoingMail {
  const base = facts.baseUrl.replace(/\/+$/, '');
  const { endpoint } = facts;
  const lines = [
    `Shade Office stopped sending webhooks to an endpoint of the workspace "${facts.workspace.name}" (${facts.workspace.subdomain}).`,
    '',
    `  Endpoint       ${endpoint.url}`,
    ...(endpoint.description ? [`  Description    ${endpoint.description}`] : []),
    `  Endpoint id    ${endpoint.id}`,
    `  Disabled at    ${facts.disabledAt.toISOString()}`,
    `  Why            ${endpoint.disabled_reason ?? 'its deliveries kept failing'}`,
    ...(endpoint.failing_since ? [`  Failing since  ${new Date(endpoint.failing_since).toISOString()} (no delivery has succeeded since)`] : []),
    '',
    facts.failures.length > 0 ? `The latest failed attempts (newest first):` : 'No failed attempt is recorded.',
    ...facts.failures.map(failureLine),
    '',
    'Events that happen while it is disabled are kept, not sent. Once the receiver answers 2xx again,',
    're-enable the endpoint and what it missed is delivered:',
    `  - on the deliveries page, ${base}/developer/webhooks: sign in as an ADMIN and press "Enable"; or`,
    `  - with the API, as an ADMIN: PATCH ${base}/api/v1/webhook-endpoints/${endpoint.id} with {"status": "enabled"}.`,
    '',
    'You receive this as the technical contact of the workspace (GET/PATCH /api/v1/organization).',
    'This is the only email about this disabling.',
  ];
  return {
    to: facts.to,
    subject: `Webhook endpoint disabled: ${endpoint.url}`,
    text: lines.join('\n') + '\n',
    messageId: disabledNoticeMessageId(endpoint.id, facts.disabledAt),
  };
}

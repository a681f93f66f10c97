// D13: what each delivery format sends and how long it waits, as data. The outbox keeps one
// envelope per event (document 000 section 6.1, db/events/outbox.ts); a `core` delivery sends
// those bytes unchanged, the two others render their own envelope from it. Rendering is a pure
// function of the stored event (and the endpoint's pinned version), so every attempt and replay
// of one event to one endpoint carries the same bytes.
import type { EventEnvelope, WebhookFormat } from '../events/catalogue';
import { WEBHOOK_HEADERS } from './headers';

export type { WebhookFormat } from '../events/catalogue';

export interface FormatRules {
  /** The receiver must answer 2xx within this many milliseconds; the request is aborted then. */
  responseWindowMs: number;
  /** An endpoint whose every attempt has failed this long is disabled (its technical contact emailed). */
  disableAfterFailingMs: number;
  /** The endpoint's `disabled_reason` then. */
  disabledReason: string;
  /**
   * Whether every non-2xx answer is retried. Core retries only 5xx, 408 and 429 (document 000
   * section 6.3 rule 4); documents 001 6.1 and 6.2 ask for a 2xx and retry anything else. A 410
   * (D13) and a refused destination (D6) are never retried.
   */
  retriesEveryFailure: boolean;
}

const HOUR_MS = 3600 * 1000;

export const FORMAT_RULES: { readonly [F in WebhookFormat]: FormatRules } = {
  // Document 000 section 6.3 rule 3; D6's 72 hours.
  core: { responseWindowMs: 8_000, disableAfterFailingMs: 72 * HOUR_MS, disabledReason: 'failing for 72 hours', retriesEveryFailure: false },
  // Document 001 section 6.1: 2xx within 10 seconds; after 24 hours of failures, disabled.
  field: { responseWindowMs: 10_000, disableAfterFailingMs: 24 * HOUR_MS, disabledReason: 'failing for 24 hours', retriesEveryFailure: true },
  // Document 001 section 6.2: a 2xx within 300 seconds; failing every attempt for 72 hours, disabled.
  events: { responseWindowMs: 300_000, disableAfterFailingMs: 72 * HOUR_MS, disabledReason: 'failing for 72 hours', retriesEveryFailure: true },
};

/** Document 001 section 6.1 and 6.2's signature headers (the core ones are WEBHOOK_HEADERS). */
export const FIELD_HEADERS = { signature: 'X-Service-Signature', eventId: 'X-Service-Event-Id' } as const;
export const EVENTS_HEADERS = { signature: 'Service-Signature' } as const;

export interface RenderContext {
  /** D16: the version the endpoint pinned at registration (`events` only). */
  apiVersion: string | null;
  /** Whether the event happened in a live workspace rather than a D1 sandbox one. */
  livemode: boolean;
}

/** What one format sends for one stored event: the body to sign and send. */
export function renderBody(format: WebhookFormat, stored: string, context: RenderContext): string {
  if (format === 'core') return stored; // byte for byte as before formats existed
  const envelope = JSON.parse(stored) as EventEnvelope;
  if (format === 'field') {
    // Section 6.1: `event`, `event_id`, `occurred_at`, `data`.
    return JSON.stringify({ event: envelope.event, event_id: envelope.id, occurred_at: envelope.created_at, data: envelope.data });
  }
  // Section 6.2: `id`, `type`, `apiVersion`, `createdAt`, `livemode`, `data {object, previousAttributes}`.
  const { previousAttributes, ...object } = envelope.data as Record<string, unknown> & { previousAttributes?: unknown };
  return JSON.stringify({
    id: envelope.id,
    type: envelope.event,
    apiVersion: context.apiVersion,
    createdAt: envelope.created_at,
    livemode: context.livemode,
    data: { object, previousAttributes: previousAttributes ?? null },
  });
}

/**
 * A test event from the deliveries page carries example data (a sample quote, a sample work
 * order): this header, in every format, tells the receiver not to act on it.
 */
export const TEST_EVENT_HEADER = { core: 'X-Service-Test', field: 'X-Service-Test', events: 'Service-Test' } as const satisfies { [F in WebhookFormat]: string };

/** The format's headers of one attempt, given its signature value (`t=<t>,v1=<hex>`). */
export function formatHeaders(format: WebhookFormat, event: { id: string; event: string; test?: boolean }, signature: string): Record<string, string> {
  const test = event.test ? { [TEST_EVENT_HEADER[format]]: 'true' } : {};
  switch (format) {
    case 'core':
      return { [WEBHOOK_HEADERS.event]: event.event, [WEBHOOK_HEADERS.delivery]: event.id, [WEBHOOK_HEADERS.signature]: signature, ...test };
    case 'field':
      return { [FIELD_HEADERS.signature]: signature, [FIELD_HEADERS.eventId]: event.id, ...test };
    case 'events':
      return { [EVENTS_HEADERS.signature]: signature, ...test };
  }
}

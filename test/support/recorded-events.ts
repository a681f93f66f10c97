import type pg from 'pg';
import type { z } from 'zod';
import { formatsCarrying, type OutboxEventName, type WebhookFormat } from '../../domain/events/catalogue';
import { EVENT_DATA_SCHEMAS } from '../../domain/events/event-data';
import { renderBody } from '../../domain/webhooks/formats';
import { CURRENT_VERSION } from '../../domain/versions/versions';
import { EVENT_SCHEMAS, EVENTS_EVENT_SCHEMAS, FIELD_EVENT_SCHEMAS } from '../../api/events/schemas';

export interface EventCheck {
  event: OutboxEventName;
  id: string;
  /** `data` against its schema, then each format's body against the published envelope. */
  problems: string[];
}

/** The envelopes the OpenAPI document publishes, by format and name. */
const PUBLISHED: { [F in WebhookFormat]: Partial<Record<OutboxEventName, z.ZodType>> } = { core: EVENT_SCHEMAS, field: FIELD_EVENT_SCHEMAS, events: EVENTS_EVENT_SCHEMAS };

const issuesOf = (schema: z.ZodType, value: unknown, what: string): string[] => {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((issue) => `${what} ${issue.path.join('.')}: ${issue.message}`);
};

/**
 * Every event the outbox holds for `organizationIds`, each checked against the one schema of its
 * data (domain/events/event-data.ts) and, rendered as each format carrying it sends it
 * (domain/webhooks/formats.ts), against the envelope the OpenAPI document publishes for it.
 */
export async function checkRecordedEvents(owner: pg.Pool, organizationIds: readonly string[]): Promise<EventCheck[]> {
  const { rows } = await owner.query<{ event: OutboxEventName; id: string; payload: string }>(
    'select event, id, payload from outbox_events where organization_id = any($1) order by sequence',
    [organizationIds],
  );
  return rows.map(({ event, id, payload }) => {
    const problems: string[] = [];
    const stored = JSON.parse(payload) as { data: unknown };
    problems.push(...issuesOf(EVENT_DATA_SCHEMAS[event], stored.data, 'data'));
    for (const format of formatsCarrying(event)) {
      const body: unknown = JSON.parse(renderBody(format, payload, { apiVersion: CURRENT_VERSION, livemode: true }));
      problems.push(...issuesOf(PUBLISHED[format][event]!, body, `${format} body`));
    }
    return { event, id, problems };
  });
}

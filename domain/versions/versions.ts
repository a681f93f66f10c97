import { isRecord, type Target, type VersionChange } from './change';
import { change20260701 } from './changes/2026-07-01';
import { change20260415 } from './changes/2026-04-15';
import { change20260120 } from './changes/2026-01-20';

/**
 * D16 and document 000 section 9: the dated versions, newest first, each with what changed. A
 * version with a change module is answered by applying, from the current version down, every
 * module newer than it. The releases before 2026-01-20 changed no shape this service answers
 * (2025-10-08 superseded the v0 `/estimates` by `/v1/quotes`; 2025-06-03 started REST v1 and
 * signed webhooks), so they have no module.
 */
export interface Release {
  version: string;
  /** The row of document 000 section 9's changelog, as the document words it. */
  changelog: string;
  /** What this service applies to answer this version: the shapes it changes, or why none. */
  changes: readonly string[];
  module?: VersionChange;
  /** The day it stops being served, once announced here (D16: after its supported-until date). */
  retiredOn?: string;
}

export const RELEASES: readonly Release[] = [
  {
    version: '2026-07-01',
    changelog: 'GraphQL schema expansion; scalar `lineItems[].deduction`; route responses name the constraint that excluded a technician',
    changes: [change20260701.description],
    module: change20260701,
  },
  { version: '2026-04-15', changelog: '`pricebookRevision` added on quote responses', changes: [change20260415.description], module: change20260415 },
  {
    version: '2026-01-20',
    changelog: '`technicianId` renamed `assigneeId` on dispatch payloads; `partsConsumed` on `invoice.generated`',
    changes: [change20260120.description],
    module: change20260120,
  },
  {
    version: '2025-10-08',
    changelog: 'v0 `/estimates` superseded by `/v1/quotes`',
    changes: ['No shape to change: this service never served the v0 `/estimates`; `/v1/quotes` answers as it does for later versions.'],
  },
  {
    version: '2025-06-03',
    changelog: 'REST API v1 and signed webhooks',
    changes: ['No shape to change: REST API v1 and signed webhooks are answered as they are for later versions.'],
    retiredOn: '2026-10-09',
  },
];

export const CURRENT_VERSION = RELEASES[0]!.version;

/** Twelve months after the next version's release (D16); null for the current version. */
export function supportedUntil(version: string): string | null {
  const index = RELEASES.findIndex((release) => release.version === version);
  if (index <= 0) return null;
  const next = new Date(`${RELEASES[index - 1]!.version}T00:00:00Z`);
  next.setUTCFullYear(next.getUTCFullYear() + 1);
  return next.toISOString().slice(0, 10);
}

export type VersionVerdict = { ok: true; version: string } | { ok: false; reason: string };

/** Whether a requested `Service-Version` is one this service answers today. */
export function checkVersion(requested: string, today: Date = new Date()): VersionVerdict {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(requested) || Number.isNaN(Date.parse(`${requested}T00:00:00Z`)) || new Date(`${requested}T00:00:00Z`).toISOString().slice(0, 10) !== requested) {
    return { ok: false, reason: `Service-Version must be a date, YYYY-MM-DD; got "${requested.slice(0, 40)}"` };
  }
  const release = RELEASES.find((r) => r.version === requested);
  if (!release) {
    if (requested > CURRENT_VERSION) return { ok: false, reason: `Service-Version ${requested} is in the future; the current version is ${CURRENT_VERSION} (GET /api/versions)` };
    return { ok: false, reason: `Service-Version ${requested} is not a version of this API (GET /api/versions lists them)` };
  }
  if (release.retiredOn && today.toISOString().slice(0, 10) >= release.retiredOn) {
    return { ok: false, reason: `Service-Version ${requested} was retired on ${release.retiredOn} (GET /api/versions)` };
  }
  return { ok: true, version: requested };
}

/** A body of the current version, in the shape of `version`: every module newer than it, newest first. */
export function shapeFor(version: string, target: Target, body: unknown): unknown {
  // A `/v1/` page ({data, next_cursor, has_more}) is shaped item by item, each as the route's one resource.
  if (isRecord(body) && Array.isArray(body.data) && typeof body.has_more === 'boolean') {
    return { ...body, data: body.data.map((item: unknown) => shapeFor(version, target, item)) };
  }
  let shaped = body;
  for (const release of RELEASES) {
    if (release.version <= version) break;
    if (release.module) shaped = release.module.transform(target, shaped);
  }
  return shaped;
}

/**
 * A stored event (document 000 section 6.1's envelope, as JSON) as an endpoint pinned to `version`
 * receives it: the same bytes when no change touches it.
 */
export function eventPayloadFor(version: string | null, payload: string): string {
  if (!version || version >= CURRENT_VERSION) return payload;
  const envelope = JSON.parse(payload) as { event: string; data: unknown };
  const data = shapeFor(version, { kind: 'event', event: envelope.event }, envelope.data);
  return data === envelope.data ? payload : JSON.stringify({ ...envelope, data });
}

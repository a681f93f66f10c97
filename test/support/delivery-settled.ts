import type pg from 'pg';
import { waitUntil } from '../../scripts/harness/wait-until';

/**
 * A delivery is carried by its endpoint's long-lived workflow, which never finishes per
 * delivery; a test waits instead for the delivery row to leave `pending` (delivered, failed or
 * missed), which the batch records in the same transaction as the attempt that ended it.
 */
export async function deliverySettled(
  owner: pg.Pool,
  ref: { endpointId: string; eventId: string; series?: number },
  timeoutMs = 60_000,
): Promise<{ id: string; status: string; attempts: number }> {
  let last = 'absent';
  return waitUntil(
    `the delivery of ${ref.eventId} to ${ref.endpointId} (series ${ref.series ?? 0}) to settle`,
    async () => {
      const { rows } = await owner.query<{ id: string; status: string; attempts: number }>(
        'select id, status, attempts from webhook_deliveries where endpoint_id = $1 and event_id = $2 and series = $3',
        [ref.endpointId, ref.eventId, ref.series ?? 0],
      );
      const row = rows[0];
      last = row?.status ?? 'absent';
      return row && row.status !== 'pending' ? row : undefined;
    },
    { timeoutMs, intervalMs: 25, detail: () => `still ${last}` },
  );
}

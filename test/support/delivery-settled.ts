import type pg from 'pg';

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
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await owner.query<{ id: string; status: string; attempts: number }>(
      'select id, status, attempts from webhook_deliveries where endpoint_id = $1 and event_id = $2 and series = $3',
      [ref.endpointId, ref.eventId, ref.series ?? 0],
    );
    const row = rows[0];
    if (row && row.status !== 'pending') return row;
    if (Date.now() > deadline) throw new Error(`delivery of ${ref.eventId} to ${ref.endpointId} (series ${ref.series ?? 0}) still ${row?.status ?? 'absent'} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

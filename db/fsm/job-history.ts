import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { keyset } from '../cursor';
import type { JobHistoryKind } from './jobs';

export interface JobHistoryRow {
  /** The entry's place in the job's history (an identity column, as text: it is a bigint). */
  sequence: string;
  kind: JobHistoryKind;
  from_status: string | null;
  to_status: string | null;
  detail: Record<string, unknown>;
  changed_by_user_id: string;
  changed_at: Date;
}

/** A history page's position: the last entry's sequence (a bigint, as digits). */
export const JOB_HISTORY_KEYSET = keyset(z.tuple([z.string().regex(/^[1-9][0-9]{0,18}$/)]), (row: JobHistoryRow) => [row.sequence] as const);

/**
 * A page of one job's append-only history, oldest first, after the entry `afterSequence` when
 * given: `limit + 1` rows, so the caller knows whether more follow. The caller has checked the
 * job is visible to it (D10); row-level security keeps it within the tenant. The order names the
 * table's column: a bare `sequence` would be the text the select list makes of it, and 1000 would
 * sort before 999.
 */
export function jobHistoryPage(em: EntityManager, jobId: string, options: { afterSequence?: string; limit: number }): Promise<JobHistoryRow[]> {
  return em.execute<JobHistoryRow[]>(
    `select sequence::text as sequence, kind, from_status, to_status, detail, changed_by_user_id, changed_at
       from job_history
      where work_order_id = ? and sequence > ?::bigint
      order by job_history.sequence
      limit ?`,
    [jobId, options.afterSequence ?? '0', options.limit + 1],
  );
}

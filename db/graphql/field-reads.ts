import type { EntityManager } from '@mikro-orm/postgresql';
import { CHANGE_ORDER_SELECT, type ChangeOrderRow, type MaterialDrawRow, type TimeEntryRow } from '../fsm/field-writes';

/**
 * The field-sync reads behind GraphQL's jobs (D17 over D11): each nested list of many jobs in one
 * statement (the first `limit` of each job, by a window), inside the caller's tenant transaction.
 */

const ID_LIST = 'array(select jsonb_array_elements_text(?::jsonb)::uuid)';

export function changeOrdersByJobIds(em: EntityManager, jobIds: readonly string[], limit: number): Promise<ChangeOrderRow[]> {
  return em.execute<ChangeOrderRow[]>(
    `select * from (${CHANGE_ORDER_SELECT.replace(/\s+from change_orders co/, ', row_number() over (partition by co.work_order_id order by co.sequence) as nth\n    from change_orders co')}
       where co.work_order_id = any(${ID_LIST})) ranked where nth <= ? order by work_order_id, sequence`,
    [JSON.stringify(jobIds), limit],
  );
}

export type JobTimeEntryRow = TimeEntryRow & { work_order_id: string };

export function timeEntriesByJobIds(em: EntityManager, jobIds: readonly string[], limit: number): Promise<JobTimeEntryRow[]> {
  return em.execute<JobTimeEntryRow[]>(
    `select * from (
       select id, work_order_id, technician_id, started_at, ended_at, round(extract(epoch from (ended_at - started_at)) / 3600.0, 4)::text as hours, notes, created_at,
              row_number() over (partition by work_order_id order by started_at, id) as nth
         from time_entries where work_order_id = any(${ID_LIST})
     ) ranked where nth <= ? order by work_order_id, started_at, id`,
    [JSON.stringify(jobIds), limit],
  );
}

export type JobMaterialDrawRow = MaterialDrawRow & { work_order_id: string };

export function materialDrawsByJobIds(em: EntityManager, jobIds: readonly string[], limit: number): Promise<JobMaterialDrawRow[]> {
  return em.execute<JobMaterialDrawRow[]>(
    `select * from (
       select id, work_order_id, sku_code, quantity::text as quantity, unit, van_id, drawn_by_user_id, created_at,
              row_number() over (partition by work_order_id order by created_at, id) as nth
         from material_draws where work_order_id = any(${ID_LIST})
     ) ranked where nth <= ? order by work_order_id, created_at, id`,
    [JSON.stringify(jobIds), limit],
  );
}

export interface CrewRecord {
  id: string;
  name: string;
  foreman_user_id: string;
  member_ids: string[];
  created_at: Date;
  /** Where a page of crews ended: name and id. */
  cursor_name: string;
}

const CREW_COLUMNS = `c.id, c.name, c.foreman_user_id, c.created_at, c.name as cursor_name,
  coalesce((select array_agg(m.user_id::text order by m.user_id) from crew_members m where m.crew_id = c.id), '{}') as member_ids`;

export function crewsByIds(em: EntityManager, ids: readonly string[]): Promise<CrewRecord[]> {
  return em.execute<CrewRecord[]>(`select ${CREW_COLUMNS} from crews c where c.id = any(${ID_LIST})`, [JSON.stringify(ids)]);
}

/** By name, then id; `limit` + 1 rows; `memberId` narrows to the crews a technician belongs to (D10). */
export function crewPage(em: EntityManager, filter: { memberId?: string | undefined; after?: readonly [string, string] | undefined; limit: number }): Promise<CrewRecord[]> {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (filter.memberId) {
    conditions.push('c.id in (select crew_id from crew_members where user_id = ?)');
    params.push(filter.memberId);
  }
  if (filter.after) {
    conditions.push('(c.name, c.id) > (?, ?::uuid)');
    params.push(...filter.after);
  }
  const where = conditions.length ? `where ${conditions.join(' and ')}` : '';
  return em.execute<CrewRecord[]>(`select ${CREW_COLUMNS} from crews c ${where} order by c.name, c.id limit ?`, [...params, filter.limit + 1]);
}

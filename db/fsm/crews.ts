import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { z } from 'zod';
import { beyond, keyset } from '../cursor';
import { tablesOf } from '../tables';
import { DEFAULT_TAX_REGION } from '../../domain/tax/quote-tax';

/** Crews (D11): a name, a foreman and member technicians (the foreman is always a member). */

export interface CrewRow {
  id: string;
  name: string;
  /** D20: null when the crew's last member left it (a deactivated technician). */
  foreman_user_id: string | null;
  foreman_name: string | null;
  member_ids: string[];
  created_at: Date;
  updated_at: Date;
}

/** Crews by name, then id. */
export const CREW_KEYSET = keyset(z.tuple([z.string().max(200), z.uuid()]), (row: CrewRow) => [row.name, row.id] as const);

function crews(em: EntityManager) {
  return tablesOf(em)
    .selectFrom('crews as c')
    .leftJoin('users as u', 'u.id', 'c.foreman_user_id')
    .select([
      'c.id',
      'c.name',
      'c.foreman_user_id',
      'u.full_name as foreman_name',
      sql<string[]>`coalesce((select array_agg(m.user_id::text order by m.user_id) from crew_members m where m.crew_id = c.id), '{}')`.as('member_ids'),
      'c.created_at',
      'c.updated_at',
    ]);
}

/**
 * The one list query of crews, by name then id: every crew, or a page (`limit` + 1 rows) after a
 * position of CREW_KEYSET; `memberId` narrows to the crews a technician belongs to (D10).
 */
export function crewPage(em: EntityManager, filter: { memberId?: string | undefined; after?: readonly [string, string] | undefined; limit?: number | undefined }): Promise<CrewRow[]> {
  let query = crews(em);
  const { memberId, after, limit } = filter;
  if (memberId) query = query.where('c.id', 'in', (eb) => eb.selectFrom('crew_members as m').select('m.crew_id').where('m.user_id', '=', memberId));
  if (after) query = query.where((eb) => beyond([eb.ref('c.name'), eb.ref('c.id')], 'asc', after));
  query = query.orderBy('c.name').orderBy('c.id');
  return (limit === undefined ? query : query.limit(limit + 1)).execute();
}

export function crewsByIds(em: EntityManager, ids: readonly string[]): Promise<CrewRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return crews(em).where('c.id', 'in', ids).execute();
}

export async function crewById(em: EntityManager, id: string, lock = false): Promise<CrewRow | undefined> {
  if (lock) await em.execute('select id from crews where id = ? for update', [id]);
  return crews(em).where('c.id', '=', id).executeTakeFirst();
}

/** The users among `ids` that are not active technicians of the tenant (unknown ones included). */
export async function notActiveTechnicians(em: EntityManager, ids: readonly string[]): Promise<{ id: string; reason: 'unknown' | 'not_technician' | 'deactivated' }[]> {
  if (ids.length === 0) return [];
  const found = await em.execute<{ id: string; role: string; active: boolean }[]>(
    `select id, role, active from users where id in (select (jsonb_array_elements_text(?::jsonb))::uuid)`,
    [JSON.stringify(ids)],
  );
  return ids.flatMap((id): { id: string; reason: 'unknown' | 'not_technician' | 'deactivated' }[] => {
    const user = found.find((u) => u.id === id);
    if (!user) return [{ id, reason: 'unknown' as const }];
    if (user.role !== 'TECHNICIAN') return [{ id, reason: 'not_technician' as const }];
    if (!user.active) return [{ id, reason: 'deactivated' as const }];
    return [];
  });
}

/** The crew's members become exactly `memberIds`; those who stay keep when they joined (D20: the longest-serving member). */
async function setMembers(em: EntityManager, crewId: string, memberIds: readonly string[]): Promise<void> {
  await em.execute('delete from crew_members where crew_id = ? and user_id not in (select (jsonb_array_elements_text(?::jsonb))::uuid)', [crewId, JSON.stringify(memberIds)]);
  await em.execute(
    `insert into crew_members (organization_id, crew_id, user_id)
     select app_current_organization(), ?, (value)::uuid from (select distinct jsonb_array_elements_text(?::jsonb) as value) v
     on conflict (crew_id, user_id) do nothing`,
    [crewId, JSON.stringify(memberIds)],
  );
}

export async function insertCrew(em: EntityManager, crew: { name: string; foremanId: string; memberIds: readonly string[] }): Promise<string> {
  const [row] = await em.execute<{ id: string }[]>(
    `insert into crews (organization_id, name, foreman_user_id) values (app_current_organization(), ?, ?) returning id`,
    [crew.name, crew.foremanId],
  );
  await setMembers(em, row!.id, [crew.foremanId, ...crew.memberIds]);
  return row!.id;
}

export async function updateCrew(em: EntityManager, id: string, crew: { name: string; foremanId: string; memberIds: readonly string[] }): Promise<void> {
  await em.execute('update crews set name = ?, foreman_user_id = ?, updated_at = now() where id = ?', [crew.name, crew.foremanId, id]);
  await setMembers(em, id, [crew.foremanId, ...crew.memberIds]);
  // D11: the work order's assignee follows its crew's foreman (the trigger bumps each job's feed position).
  await em.execute(`update work_orders set assigned_technician_id = ? where crew_id = ? and job_status not in ('complete', 'cancelled')`, [crew.foremanId, id]);
  // Every job of the crew shows its foreman and headcount: each takes a new place in the feed.
  await em.execute('update work_orders set job_updated_at = job_updated_at where crew_id = ?', [id]);
}

/** The crews a user is a member of, locked, with every member and when they joined (D20: deactivation). */
export async function crewsOfMember(em: EntityManager, userId: string): Promise<{ id: string; foreman_user_id: string | null; members: { userId: string; joinedAt: Date }[] }[]> {
  const crews = await em.execute<{ id: string; foreman_user_id: string | null }[]>(
    'select c.id, c.foreman_user_id from crews c where c.id in (select crew_id from crew_members where user_id = ?) order by c.id for update of c',
    [userId],
  );
  if (crews.length === 0) return [];
  const members = await em.execute<{ crew_id: string; user_id: string; joined_at: Date }[]>(
    'select crew_id, user_id, joined_at from crew_members where crew_id in (select (jsonb_array_elements_text(?::jsonb))::uuid)',
    [JSON.stringify(crews.map((c) => c.id))],
  );
  return crews.map((c) => ({ ...c, members: members.filter((m) => m.crew_id === c.id).map((m) => ({ userId: m.user_id, joinedAt: new Date(m.joined_at) })) }));
}

/**
 * D20: a deactivated technician leaves a crew; its foreman becomes `foremanId` (or no one), and
 * its open jobs' assignee follows the foreman (D11), each job taking a new place in the feed.
 */
export async function leaveCrew(em: EntityManager, crewId: string, userId: string, foremanId: string | null): Promise<void> {
  await em.execute('delete from crew_members where crew_id = ? and user_id = ?', [crewId, userId]);
  await em.execute('update crews set foreman_user_id = ?, updated_at = now() where id = ?', [foremanId, crewId]);
  await em.execute(`update work_orders set assigned_technician_id = ? where crew_id = ? and job_status not in ('complete', 'cancelled')`, [foremanId, crewId]);
  await em.execute('update work_orders set job_updated_at = job_updated_at where crew_id = ?', [crewId]);
}

/** The open jobs (neither complete nor cancelled) of the crews, for D20's `affected_jobs`. */
export async function openJobsOfCrews(em: EntityManager, crewIds: readonly string[]): Promise<{ id: string; crew_id: string; status: string; scheduled_date: string | null }[]> {
  if (crewIds.length === 0) return [];
  return em.execute(
    `select id, crew_id, job_status as status, to_char(scheduled_date, 'YYYY-MM-DD') as scheduled_date from work_orders
      where crew_id in (select (jsonb_array_elements_text(?::jsonb))::uuid) and job_status not in ('complete', 'cancelled') order by scheduled_date nulls last, id`,
    [JSON.stringify(crewIds)],
  );
}

/** D11: a job takes a crew, and its work order's assignee becomes that crew's foreman. */
export async function assignJobCrew(em: EntityManager, jobId: string, crew: { id: string; foreman_user_id: string | null }): Promise<void> {
  await em.execute('update work_orders set crew_id = ?, assigned_technician_id = ? where id = ?', [crew.id, crew.foreman_user_id, jobId]);
}

/** D11: a work order created with a technician gets the crew that technician leads, or a crew of one. */
export async function crewLedBy(em: EntityManager, technicianId: string): Promise<string> {
  const [led] = await em.execute<{ id: string }[]>('select id from crews where foreman_user_id = ? order by created_at, id limit 1', [technicianId]);
  if (led) return led.id;
  const [user] = await em.execute<{ full_name: string }[]>('select full_name from users where id = ?', [technicianId]);
  return insertCrew(em, { name: user!.full_name.slice(0, 120), foremanId: technicianId, memberIds: [] });
}

/** Whether any member of the crew is deactivated (such a crew cannot take a job). */
export async function deactivatedMembers(em: EntityManager, crewId: string): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    'select u.id from crew_members m join users u on u.id = m.user_id where m.crew_id = ? and (not u.active or u.role <> ?)',
    [crewId, 'TECHNICIAN'],
  );
  return rows.map((r) => r.id);
}

/** D11: a site found or made from a work order's site address (in the default region of D25 unless given). */
export async function siteForAddress(em: EntityManager, address: string | null, region = DEFAULT_TAX_REGION): Promise<string | null> {
  const name = address?.trim();
  if (!name) return null;
  const [made] = await em.execute<{ id: string }[]>(
    `insert into sites (organization_id, name, region, address_key) values (app_current_organization(), ?, ?, lower(?))
     on conflict (organization_id, address_key) do nothing returning id`,
    [name, region, name],
  );
  if (made) return made.id;
  const [found] = await em.execute<{ id: string }[]>('select id from sites where address_key = lower(?)', [name]);
  return found!.id;
}

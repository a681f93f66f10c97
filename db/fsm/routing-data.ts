import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { keyset } from '../cursor';
import type { TimeOff, WeeklyHours } from '../../domain/routing/availability';
import type { LineForSkills } from '../../domain/routing/skills';

/**
 * D23: what routing needs, kept per tenant (row-level security): technicians' skills, weekly
 * hours and time off, sites' coordinates, and each job's schedule on its work order.
 */

export interface TechnicianRoutingRow {
  id: string;
  full_name: string;
  email: string;
  active: boolean;
  skills: string[];
  weekly: WeeklyHours[] | null;
  time_off: TimeOff[];
  crew_ids: string[];
}

const TECHNICIANS = `
  select u.id, u.full_name, u.email, u.active,
         coalesce(r.skills, '{}') as skills, r.weekly, coalesce(r.time_off, '[]'::jsonb) as time_off,
         coalesce((select array_agg(m.crew_id::text order by m.crew_id) from crew_members m where m.user_id = u.id), '{}') as crew_ids
    from users u left join technician_routing r on r.user_id = u.id
   where u.role = 'TECHNICIAN'`;

/** Every technician of the tenant, by name then id. */
export function technicianRoutingRows(em: EntityManager): Promise<TechnicianRoutingRow[]> {
  return em.execute<TechnicianRoutingRow[]>(`${TECHNICIANS} order by u.full_name, u.id`);
}

/** The technicians list's order: by name, then id. */
export const TECHNICIAN_KEYSET = keyset(z.tuple([z.string().max(1000), z.uuid()]), (row: TechnicianRoutingRow) => [row.full_name, row.id] as const);

/** A page of the technicians list: `limit` + 1 rows strictly after `after` in TECHNICIAN_KEYSET's order. */
export function technicianRoutingPage(em: EntityManager, page: { after?: readonly [string, string] | undefined; limit: number }): Promise<TechnicianRoutingRow[]> {
  const after = page.after ? ' and (u.full_name, u.id) > (?, ?::uuid)' : '';
  return em.execute<TechnicianRoutingRow[]>(`${TECHNICIANS}${after} order by u.full_name, u.id limit ?`, [...(page.after ?? []), page.limit + 1]);
}

export async function technicianRoutingRow(em: EntityManager, id: string): Promise<TechnicianRoutingRow | undefined> {
  const [row] = await em.execute<TechnicianRoutingRow[]>(`${TECHNICIANS} and u.id = ?`, [id]);
  return row;
}

export async function setTechnicianSkills(em: EntityManager, userId: string, skills: readonly string[]): Promise<void> {
  await em.execute(
    `insert into technician_routing (organization_id, user_id, skills) values (app_current_organization(), ?, ?::text[])
     on conflict (organization_id, user_id) do update set skills = excluded.skills, updated_at = now()`,
    [userId, toTextArray(skills)],
  );
}

export async function setTechnicianAvailability(em: EntityManager, userId: string, availability: { weekly: readonly WeeklyHours[]; time_off: readonly TimeOff[] }): Promise<void> {
  await em.execute(
    `insert into technician_routing (organization_id, user_id, weekly, time_off) values (app_current_organization(), ?, ?::jsonb, ?::jsonb)
     on conflict (organization_id, user_id) do update set weekly = excluded.weekly, time_off = excluded.time_off, updated_at = now()`,
    [userId, JSON.stringify(availability.weekly), JSON.stringify(availability.time_off)],
  );
}

/** Every skill code the tenant's technicians or jobs already carry (the codes it "adds", D23). */
export async function tenantSkillCodes(em: EntityManager): Promise<Set<string>> {
  const rows = await em.execute<{ code: string }[]>(
    `select unnest(skills) as code from technician_routing union select unnest(added_skills) from work_orders`,
  );
  return new Set(rows.map((r) => r.code));
}

/** A text[] literal for a bound parameter: codes are validated lower-case words, nothing to escape. */
function toTextArray(codes: readonly string[]): string {
  return `{${codes.join(',')}}`;
}

export interface SiteRow {
  id: string;
  name: string;
  region: string;
  lat: number | null;
  lon: number | null;
}

export function siteRows(em: EntityManager): Promise<SiteRow[]> {
  return em.execute<SiteRow[]>('select id, name, region, lat, lon from sites order by name, id');
}

/** The sites list's order: by name, then id. */
export const SITE_KEYSET = keyset(z.tuple([z.string().max(400), z.uuid()]), (row: SiteRow) => [row.name, row.id] as const);

/** A page of the sites list: `limit` + 1 rows strictly after `after` in SITE_KEYSET's order. */
export function sitePage(em: EntityManager, page: { after?: readonly [string, string] | undefined; limit: number }): Promise<SiteRow[]> {
  const after = page.after ? ' where (name, id) > (?, ?::uuid)' : '';
  return em.execute<SiteRow[]>(`select id, name, region, lat, lon from sites${after} order by name, id limit ?`, [...(page.after ?? []), page.limit + 1]);
}

export async function siteRow(em: EntityManager, id: string): Promise<SiteRow | undefined> {
  const [row] = await em.execute<SiteRow[]>('select id, name, region, lat, lon from sites where id = ?', [id]);
  return row;
}

export async function updateSite(em: EntityManager, id: string, site: { name: string; lat: number | null; lon: number | null }): Promise<void> {
  await em.execute('update sites set name = ?, lat = ?, lon = ? where id = ?', [site.name, site.lat, site.lon, id]);
  // The jobs at the site show its name: each takes a new place in the feed (D11).
  await em.execute('update work_orders set job_updated_at = job_updated_at where site_id = ?', [id]);
}

export interface JobScheduleRow {
  job_id: string;
  window_start: string | null;
  window_end: string | null;
  duration_minutes: number | null;
  added_skills: string[];
  lines: LineForSkills[];
}

/**
 * The stored schedule of jobs and the lines their skills come from: each line's width and
 * whether it has a motor (the quote's frozen calculation, else its calculation).
 */
export function jobScheduleRows(em: EntityManager, jobIds: readonly string[]): Promise<JobScheduleRow[]> {
  if (jobIds.length === 0) return Promise.resolve([]);
  return em.execute<JobScheduleRow[]>(
    `select w.id as job_id, to_char(w.window_start, 'HH24:MI') as window_start, to_char(w.window_end, 'HH24:MI') as window_end,
            w.duration_minutes, w.added_skills,
            coalesce((select jsonb_agg(jsonb_build_object(
                        'widthInches', (li->>'width_inches')::numeric,
                        'hasMotor', exists (select 1 from jsonb_array_elements(li->'components') c where c->>'component' = 'motor')))
                        from jsonb_array_elements(coalesce(q.frozen_calculation, q.calculation)->'line_items') li), '[]'::jsonb) as lines
       from work_orders w left join quotes q on q.id = w.quote_id
      where w.id in (select (jsonb_array_elements_text(?::jsonb))::uuid)`,
    [JSON.stringify(jobIds)],
  );
}

export async function setJobSchedule(
  em: EntityManager,
  jobId: string,
  schedule: { windowStart: string | null; windowEnd: string | null; durationMinutes: number | null; addedSkills: readonly string[] },
): Promise<void> {
  await em.execute(
    `update work_orders set window_start = ?::time, window_end = ?::time, duration_minutes = ?, added_skills = ?::text[] where id = ?`,
    [schedule.windowStart, schedule.windowEnd, schedule.durationMinutes, toTextArray(schedule.addedSkills), jobId],
  );
}

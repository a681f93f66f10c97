import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { conflict, jobNotFound, notFound, validationFailed } from '../../domain/errors/errors';
import type { Caller } from '../http/request-context';
import { lockJob, lockJobClock, recordJobHistory } from '../../db/fsm/jobs';
import {
  jobScheduleRows, setJobSchedule, setTechnicianAvailability, setTechnicianSkills, SITE_KEYSET, sitePage, siteRow, TECHNICIAN_KEYSET, technicianRoutingPage, technicianRoutingRow, tenantSkillCodes, updateSite,
  type SiteRow, type TechnicianRoutingRow,
} from '../../db/fsm/routing-data';
import { pageOf } from '../../db/cursor';
import { v1CursorPosition, v1PageOf } from '../v1/page';
import { DEFAULT_WEEK } from '../../domain/routing/availability';
import { unknownSkills } from '../../domain/routing/skills';
import { TERMINAL_JOB_STATUSES } from '../../domain/jobs/job-status-table';
import type { AvailabilityBody, JobScheduleBody, Site, SitePatchBody, SkillsBody, Technician } from './routing-schemas';

export function toTechnician(row: TechnicianRoutingRow): Technician {
  return {
    technician_id: row.id,
    name: row.full_name,
    email: row.email,
    active: row.active,
    skills: [...row.skills].sort(),
    availability: { weekly: row.weekly ?? [...DEFAULT_WEEK], time_off: row.time_off, is_default: row.weekly === null },
    crew_ids: row.crew_ids,
  };
}

export function toSite(row: SiteRow): Site {
  return { site_id: row.id, name: row.name, region: row.region, lat: row.lat, lon: row.lon, located: row.lat !== null && row.lon !== null };
}

/** D23: the data routing needs, kept by the service (technicians, sites, a job's schedule). */
export class RoutingDataService {
  constructor(private readonly em: EntityManager) {}

  /** By name, keyset-paged as every `/v1/` list. */
  technicians(caller: Caller, query: { limit: number; cursor?: string | undefined }): Promise<{ data: Technician[]; next_cursor: string | null; has_more: boolean }> {
    const after = v1CursorPosition(TECHNICIAN_KEYSET, query.cursor);
    return inTenant(this.em, caller.organizationId, async (tx) => v1PageOf(pageOf(await technicianRoutingPage(tx, { after, limit: query.limit }), query.limit, TECHNICIAN_KEYSET), toTechnician));
  }

  setSkills(caller: Caller, id: string, body: SkillsBody): Promise<Technician> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      if (!(await technicianRoutingRow(tx, id))) throw notFound('No such technician in this workspace.');
      // A code a technician carries is one the tenant adds (D23): any well-formed code is taken here.
      await setTechnicianSkills(tx, id, body.skills);
      return toTechnician((await technicianRoutingRow(tx, id))!);
    });
  }

  setAvailability(caller: Caller, id: string, body: AvailabilityBody): Promise<Technician> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      if (!(await technicianRoutingRow(tx, id))) throw notFound('No such technician in this workspace.');
      await setTechnicianAvailability(tx, id, body);
      return toTechnician((await technicianRoutingRow(tx, id))!);
    });
  }

  /** By name, keyset-paged as every `/v1/` list. */
  sites(caller: Caller, query: { limit: number; cursor?: string | undefined }): Promise<{ data: Site[]; next_cursor: string | null; has_more: boolean }> {
    const after = v1CursorPosition(SITE_KEYSET, query.cursor);
    return inTenant(this.em, caller.organizationId, async (tx) => v1PageOf(pageOf(await sitePage(tx, { after, limit: query.limit }), query.limit, SITE_KEYSET), toSite));
  }

  patchSite(caller: Caller, id: string, body: SitePatchBody): Promise<Site> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      await lockJobClock(tx);
      const site = await siteRow(tx, id);
      if (!site) throw notFound('No such site in this workspace.');
      await updateSite(tx, id, { name: body.name ?? site.name, lat: body.lat === undefined ? site.lat : body.lat, lon: body.lon === undefined ? site.lon : body.lon });
      return toSite((await siteRow(tx, id))!);
    });
  }

  /**
   * D23: the office sets a job's window, duration and added skills; omitted fields stay, null
   * returns a field to its default. A skill no technician carries and not built in is unknown
   * (422 at its path): a typo would otherwise exclude the job from every crew.
   */
  async setSchedule(caller: Caller, jobId: string, body: JobScheduleBody): Promise<void> {
    await inTenant(this.em, caller.organizationId, async (tx) => {
      await lockJobClock(tx);
      const job = await lockJob(tx, jobId, {});
      if (!job) throw jobNotFound();
      if (TERMINAL_JOB_STATUSES.includes(job.job_status)) throw conflict(`The job is ${job.job_status}: its schedule no longer changes.`);
      const [current] = await jobScheduleRows(tx, [jobId]);
      const next = {
        windowStart: body.window_start === undefined ? current!.window_start : body.window_start,
        windowEnd: body.window_end === undefined ? current!.window_end : body.window_end,
        durationMinutes: body.duration_minutes === undefined ? current!.duration_minutes : body.duration_minutes,
        addedSkills: body.required_skills ?? current!.added_skills,
      };
      if (next.windowStart && next.windowEnd && next.windowEnd <= next.windowStart) {
        throw validationFailed({ [body.window_end === undefined ? 'window_start' : 'window_end']: `The window must end after it starts (${next.windowStart}-${next.windowEnd}).` });
      }
      if (body.required_skills) {
        const unknown = unknownSkills(body.required_skills, await tenantSkillCodes(tx));
        if (unknown.length > 0) throw validationFailed(Object.fromEntries(unknown.map((i) => [`required_skills.${i}`, `Unknown skill: no technician has it and it is not built in (${body.required_skills![i]}).`])));
      }
      await setJobSchedule(tx, jobId, next);
      await recordJobHistory(tx, { jobId, kind: 'route', userId: caller.userId, detail: { schedule: next } });
    });
  }
}

import { route, type RouteHost } from '../http/route';
import { ADMIN_ONLY, OFFICE } from '../http/roles';
import { PROBLEM_CONTENT_TYPE, ProblemSchema, problemExample } from '../v1/problem';
import type { RoutingDataService } from './routing-data-service';
import type { JobService } from './job-service';
import { AvailabilityBody, JobScheduleBody, Site, SiteIdParams, SiteList, SiteListQuery, SitePatchBody, SkillsBody, Technician, TechnicianIdParams, TechnicianList, TechnicianListQuery } from './routing-schemas';
import { JobDetail, JobIdParams } from './schemas';
import { JOB_DETAIL_EXAMPLE } from './examples';

const TAGS = ['Routes'];
const problem = (status: number, description: string, type?: Parameters<typeof problemExample>[3]) => ({
  description,
  schema: ProblemSchema,
  contentType: PROBLEM_CONTENT_TYPE,
  example: problemExample(status, description, undefined, type),
});

const TECHNICIAN_EXAMPLE: Technician = {
  technician_id: '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a',
  name: 'Taylor Tech',
  email: 'tech@sandbox.test',
  active: true,
  skills: ['large_format', 'motorisation'],
  availability: {
    weekly: [
      { day: 'mon', start: '07:00', end: '15:30', break_minutes: 30 },
      { day: 'tue', start: '07:00', end: '15:30', break_minutes: 30 },
    ],
    time_off: [{ start: '2026-12-24', end: '2026-12-26', reason: 'Holidays' }],
    is_default: false,
  },
  crew_ids: ['3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f'],
};
const SITE_EXAMPLE: Site = { site_id: '5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b', name: '120 Front St W, Toronto', region: 'CA-ON', lat: 43.6455, lon: -79.3841, located: true };

/** D23: the data routing needs (technicians' skills and hours, sites' coordinates, a job's schedule). */
export function routingDataRoutes(host: RouteHost, deps: { routingData: RoutingDataService; jobs: JobService }): void {
  route(host, {
    method: 'get',
    path: '/v1/fsm/technicians',
    operationId: 'listTechnicians',
    summary: 'Technicians with their skills, weekly hours, time off and crews',
    description:
      'ADMIN and SALES. By name; pass `next_cursor` back as `cursor` while `has_more` is true. ' +
      'A technician without hours set shows the default week (Monday to Friday 08:00-17:00, 30-minute unpaid break) with `is_default: true`.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: OFFICE,
    query: TechnicianListQuery,
    responses: {
      200: { description: 'A page of technicians', schema: TechnicianList, example: { data: [TECHNICIAN_EXAMPLE], next_cursor: null, has_more: false } },
      400: problem(400, 'A cursor this list did not hand out', 'validation-failed'),
    },
    handler: async ({ res, caller, query }) => {
      res.json(await deps.routingData.technicians(caller, query));
    },
  });

  route(host, {
    method: 'put',
    path: '/v1/fsm/technicians/:technician_id/skills',
    operationId: 'setTechnicianSkills',
    summary: 'Set a technician\'s skills (ADMIN)',
    description: 'Replaces the list. Codes are lower-case, 1-40 characters: `motorisation`, `large_format`, `high_reach`, or the tenant\'s own (a code given here becomes one the tenant knows). A crew has the union of its members\' skills.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: ADMIN_ONLY,
    params: TechnicianIdParams,
    body: SkillsBody,
    bodyExample: { skills: ['motorisation', 'large_format'] },
    responses: { 200: { description: 'The technician', schema: Technician, example: TECHNICIAN_EXAMPLE }, 404: problem(404, 'No such technician', 'not-found') },
    handler: async ({ res, caller, params, body }) => {
      res.json(await deps.routingData.setSkills(caller, params.technician_id, body));
    },
  });

  route(host, {
    method: 'put',
    path: '/v1/fsm/technicians/:technician_id/availability',
    operationId: 'setTechnicianAvailability',
    summary: 'Set a technician\'s weekly hours and time off (ADMIN)',
    description:
      'Replaces both. `weekly`: at most one entry per day, `HH:mm` local, end after start, `break_minutes` unpaid; a day without an entry is a day off. ' +
      '`time_off`: local dates (whole days, end inclusive) or local date-times (`YYYY-MM-DDTHH:mm`). A crew works the intersection of its members\' hours.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: ADMIN_ONLY,
    params: TechnicianIdParams,
    body: AvailabilityBody,
    bodyExample: { weekly: [{ day: 'mon', start: '07:00', end: '15:30', break_minutes: 30 }], time_off: [{ start: '2026-12-24', end: '2026-12-26', reason: 'Holidays' }] },
    responses: { 200: { description: 'The technician', schema: Technician, example: TECHNICIAN_EXAMPLE }, 404: problem(404, 'No such technician', 'not-found') },
    handler: async ({ res, caller, params, body }) => {
      res.json(await deps.routingData.setAvailability(caller, params.technician_id, body));
    },
  });

  route(host, {
    method: 'get',
    path: '/v1/fsm/sites',
    operationId: 'listSites',
    summary: 'Sites with their coordinates',
    description: 'ADMIN and SALES. By name; pass `next_cursor` back as `cursor` while `has_more` is true. A site without `lat`/`lon` cannot be routed (`SITE_NOT_LOCATED`).',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: OFFICE,
    query: SiteListQuery,
    responses: {
      200: { description: 'A page of sites', schema: SiteList, example: { data: [SITE_EXAMPLE], next_cursor: null, has_more: false } },
      400: problem(400, 'A cursor this list did not hand out', 'validation-failed'),
    },
    handler: async ({ res, caller, query }) => {
      res.json(await deps.routingData.sites(caller, query));
    },
  });

  route(host, {
    method: 'patch',
    path: '/v1/fsm/sites/:site_id',
    operationId: 'updateSite',
    summary: 'Name or locate a site (ADMIN)',
    description: 'WGS84 decimal degrees: `lat` -90 to 90, `lon` -180 to 180, set together (null and null un-locates it). Omitted fields stay.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: ADMIN_ONLY,
    params: SiteIdParams,
    body: SitePatchBody,
    bodyExample: { lat: 43.6455, lon: -79.3841 },
    responses: { 200: { description: 'The site', schema: Site, example: SITE_EXAMPLE }, 404: problem(404, 'No such site', 'not-found') },
    handler: async ({ res, caller, params, body }) => {
      res.json(await deps.routingData.patchSite(caller, params.site_id, body));
    },
  });

  route(host, {
    method: 'patch',
    path: '/v1/fsm/jobs/:job_id/schedule',
    operationId: 'setJobSchedule',
    summary: 'Set a job\'s window, duration and added skills on its scheduled date (ADMIN)',
    description:
      'Omitted fields stay; null returns a field to its default: the window is the working day, the duration the estimated hours not yet logged divided among the crew\'s headcount ' +
      '(at least 15 minutes), and the required skills are those the quote lines imply (`motorisation` for a motor, `large_format` for a line wider than 96 inches) plus those given here. ' +
      'A skill that is not built in and that no technician has is 422 at its path (`required_skills.N`). The job shows the result under `schedule`.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: ADMIN_ONLY,
    params: JobIdParams,
    body: JobScheduleBody,
    bodyExample: { window_start: '09:00', window_end: '12:00', required_skills: ['high_reach'] },
    responses: {
      200: { description: 'The job with its schedule', schema: JobDetail, example: JOB_DETAIL_EXAMPLE },
      404: problem(404, 'No such job', 'job-not-found'),
      409: problem(409, 'The job is complete or cancelled', 'conflict'),
    },
    handler: async ({ res, caller, params, body }) => {
      await deps.routingData.setSchedule(caller, params.job_id, body);
      res.json(await deps.jobs.get(caller, params.job_id));
    },
  });
}

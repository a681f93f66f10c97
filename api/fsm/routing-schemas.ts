import { CREW_STATUSES } from '../../domain/dispatch/dispatch-update';
import { calendarDate } from '../http/date-schemas';
import { z } from 'zod';
import { SkillCode } from '../../domain/routing/skills';
import { Availability, TimeOff, WeeklyHours } from '../../domain/routing/availability';
import { HHMM } from '../../domain/routing/clock';
import { v1Page, V1PageQuery } from '../v1/page';

/** D23: the shapes of the routing data of /v1/fsm/ (technicians, sites, a job's schedule). */

export const TechnicianIdParams = z.strictObject({ technician_id: z.uuid() });
export const SiteIdParams = z.strictObject({ site_id: z.uuid() });

const Skills = z
  .array(SkillCode)
  .max(50)
  .refine((codes) => new Set(codes).size === codes.length, { message: 'Each skill once.' });

export const SkillsBody = z.strictObject({ skills: Skills });
export type SkillsBody = z.output<typeof SkillsBody>;
export const AvailabilityBody = Availability;
export type AvailabilityBody = z.output<typeof AvailabilityBody>;

export const Technician = z
  .strictObject({
    technician_id: z.uuid(),
    name: z.string(),
    email: z.string(),
    active: z.boolean(),
    skills: z.array(z.string()),
    availability: z.strictObject({
      weekly: z.array(WeeklyHours).meta({ description: 'Monday to Friday 08:00-17:00 with a 30-minute break unless set.' }),
      time_off: z.array(TimeOff),
      is_default: z.boolean().meta({ description: 'True while the technician has the default week (Monday to Friday 08:00-17:00, 30-minute break).' }),
    }),
    crew_ids: z.array(z.uuid()),
  })
  .meta({ id: 'Technician' });
export type Technician = z.infer<typeof Technician>;
export const TechnicianList = v1Page(Technician, 'TechnicianList');
export const TechnicianListQuery = V1PageQuery;

/** WGS84 decimal degrees (D23). */
export const Latitude = z.number().min(-90).max(90).meta({ description: 'WGS84 latitude, decimal degrees, -90 to 90' });
export const Longitude = z.number().min(-180).max(180).meta({ description: 'WGS84 longitude, decimal degrees, -180 to 180' });

export const Site = z
  .strictObject({ site_id: z.uuid(), name: z.string(), region: z.string(), lat: Latitude.nullable(), lon: Longitude.nullable(), located: z.boolean() })
  .meta({ id: 'Site' });
export type Site = z.infer<typeof Site>;
export const SiteList = v1Page(Site, 'SiteList');
export const SiteListQuery = V1PageQuery;

export const SitePatchBody = z
  .strictObject({ name: z.string().trim().min(1).max(400).optional(), lat: Latitude.nullable().optional(), lon: Longitude.nullable().optional() })
  .refine((b) => (b.lat === undefined) === (b.lon === undefined), { path: ['lon'], message: 'lat and lon are set together.' })
  .refine((b) => b.lat === undefined || (b.lat === null) === (b.lon === null), { path: ['lon'], message: 'lat and lon are both numbers or both null.' });
export type SitePatchBody = z.output<typeof SitePatchBody>;

const LocalTime = z.string().regex(HHMM, 'HH:mm, 00:00 to 23:59.');
export const JobScheduleBody = z
  .strictObject({
    window_start: LocalTime.nullable().optional().meta({ description: 'Local time on the scheduled date; null returns to the default (the working day).' }),
    window_end: LocalTime.nullable().optional(),
    required_skills: Skills.optional().meta({ description: 'Skills the office adds to those the quote lines imply (motorisation, large_format).' }),
    duration_minutes: z.number().int().min(1).max(1440).nullable().optional().meta({ description: 'null returns to the default (estimated hours not logged / headcount, at least 15).' }),
  })
  .refine((b) => !(b.window_start && b.window_end) || b.window_end > b.window_start, { path: ['window_end'], message: 'Must be after window_start.' });
export type JobScheduleBody = z.output<typeof JobScheduleBody>;

export const JobSchedule = z
  .strictObject({
    window_start: LocalTime,
    window_end: LocalTime,
    duration_minutes: z.number().int(),
    required_skills: z.array(z.string()),
    defaults: z.array(z.enum(['window', 'duration_minutes'])).meta({ description: 'Fields that are defaults rather than set by the office.' }),
  })
  .meta({ id: 'JobSchedule' });

// ---- D23: routes ----
// The one date rule (api/http/date-schemas.ts): a day outside the years 0001-9999 is a 422 naming it.
const LocalDate = calendarDate('A local date of the workspace, YYYY-MM-DD');
const LocalDateTime = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/).meta({ description: 'Local to the workspace\'s time zone, YYYY-MM-DDTHH:mm' });
const ReasonCode = z.enum(['SKILL_MISSING', 'OUTSIDE_SHIFT', 'ON_TIME_OFF', 'TIME_WINDOW_UNREACHABLE', 'OVERTIME_CAP', 'SITE_NOT_LOCATED', 'PLAN_ROUTE_LIMIT']);
export const RouteDateParams = z.strictObject({ date: LocalDate });
export const RouteCrewParams = z.strictObject({ date: LocalDate, crew_id: z.uuid() });
export const RoutesQuery = z.strictObject({ date: LocalDate });

export const RouteStop = z.strictObject({
  sequence: z.number().int().min(1),
  jobId: z.uuid(),
  etaLocal: LocalDateTime,
  departLocal: LocalDateTime,
  windowStart: LocalTime,
  windowEnd: LocalTime,
  driveMinutesFromPrevious: z.number().int(),
  status: z.string().meta({ description: '`planned` until the crew reports otherwise' }),
});
export const RouteViolation = z.strictObject({
  jobId: z.uuid(),
  code: z.enum([...ReasonCode.options, 'CAPACITY']),
  minutes: z.number().int().meta({ description: 'How far over (minutes past the window or the overtime cap); 0 for a constraint that is not a time' }),
});
export const Route = z
  .strictObject({
    id: z.uuid().nullable().meta({ description: 'null in a dry run or a check: nothing stored' }),
    date: LocalDate,
    crewId: z.uuid(),
    assigneeId: z.uuid().meta({ description: 'The crew\'s foreman (`technicianId` for versions before 2026-01-20)' }),
    shift: z.strictObject({ start: LocalTime, end: LocalTime }),
    totalDriveMinutes: z.number().int(),
    overtimeMinutes: z.number().int(),
    stops: z.array(RouteStop),
    violations: z.array(RouteViolation),
    travelTimeSource: z.enum(['great_circle', 'osrm']),
    revision: z.number().int().min(1).nullable().meta({ description: 'Increases with every change of this route; null when not stored' }),
  })
  .meta({ id: 'Route' });
export type Route = z.infer<typeof Route>;

const Reason = z.strictObject({ code: ReasonCode, detail: z.string() });
const UnassignedJob = z.strictObject({ jobId: z.uuid(), reasons: z.array(Reason.extend({ crewId: z.uuid() })).meta({ description: 'Absent before 2026-07-01' }).optional() });
const Exclusion = z.strictObject({ jobId: z.uuid(), crewId: z.uuid(), reasons: z.array(Reason) });

export const RoutesDay = z
  .strictObject({ date: LocalDate, data: z.array(Route), unassigned: z.array(UnassignedJob), exclusions: z.array(Exclusion).optional() })
  .meta({ id: 'RoutesDay' });
export type RoutesDay = z.infer<typeof RoutesDay>;

export const PlanBody = z.strictObject({
  mode: z.enum(['optimize', 'check']).default('optimize'),
  keep_assignments: z.boolean().default(false),
  dry_run: z.boolean().default(false),
});
export type PlanBody = z.output<typeof PlanBody>;

export const PlanAnswer = z
  .strictObject({
    date: LocalDate,
    mode: z.enum(['optimize', 'check']),
    dry_run: z.boolean(),
    applied: z.boolean(),
    travelTimeSource: z.enum(['great_circle', 'osrm']),
    solver: z.string().nullable(),
    data: z.array(Route),
    unassigned: z.array(UnassignedJob),
    exclusions: z.array(Exclusion).optional().meta({ description: 'Every job and crew that could not take it, with the reasons (absent before 2026-07-01)' }),
  })
  .meta({ id: 'RoutePlan' });
export type PlanAnswer = z.infer<typeof PlanAnswer>;

export const PlanRunning = z
  .strictObject({ status: z.literal('running'), stage: z.enum(['loading', 'solving', 'applying', 'done']), workflow_id: z.string() })
  .meta({ id: 'RoutePlanRunning' });

/** D23: what a crew reports of its day. */
export const CrewStatusBody = z
  .strictObject({
    status: z.enum(CREW_STATUSES),
    jobId: z.uuid().optional().meta({ description: 'The stop it is about; without it, the crew\'s current stop' }),
  })
  .meta({ id: 'CrewStatusRequest' });
export type CrewStatusBody = z.output<typeof CrewStatusBody>;

export const HandRouteBody = z.strictObject({
  stops: z
    .array(z.uuid())
    .max(200)
    .refine((ids) => new Set(ids).size === ids.length, { message: 'Each job once.' }),
});
export type HandRouteBody = z.output<typeof HandRouteBody>;

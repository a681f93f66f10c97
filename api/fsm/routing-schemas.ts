import { z } from 'zod';
import { SkillCode } from '../../domain/routing/skills';
import { Availability, TimeOff, WeeklyHours } from '../../domain/routing/availability';
import { HHMM } from '../../domain/routing/clock';

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
      weekly: z.array(WeeklyHours).meta({ description: 'D23: Monday to Friday 08:00-17:00 with a 30-minute break unless set.' }),
      time_off: z.array(TimeOff),
      is_default: z.boolean().meta({ description: 'True while the technician has D23\'s default week.' }),
    }),
    crew_ids: z.array(z.uuid()),
  })
  .meta({ id: 'Technician' });
export type Technician = z.infer<typeof Technician>;
export const TechnicianList = z.strictObject({ data: z.array(Technician) });

/** WGS84 decimal degrees (D23). */
export const Latitude = z.number().min(-90).max(90).meta({ description: 'WGS84 latitude, decimal degrees, -90 to 90' });
export const Longitude = z.number().min(-180).max(180).meta({ description: 'WGS84 longitude, decimal degrees, -180 to 180' });

export const Site = z
  .strictObject({ site_id: z.uuid(), name: z.string(), region: z.string(), lat: Latitude.nullable(), lon: Longitude.nullable(), located: z.boolean() })
  .meta({ id: 'Site' });
export type Site = z.infer<typeof Site>;
export const SiteList = z.strictObject({ data: z.array(Site) });

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
    defaults: z.array(z.enum(['window', 'duration_minutes'])).meta({ description: 'Fields that are D23\'s defaults rather than set by the office.' }),
  })
  .meta({ id: 'JobSchedule' });

import { z } from 'zod';
import { HHMM, minutesOf } from './clock';

/**
 * D23: a technician's weekly hours and time off, and a crew's day from its members' (a crew
 * travels together: the intersection of its members' hours, the union of their time off, the
 * longest of their breaks). Times are local to the tenant's time zone.
 */
export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

const LocalTime = z.string().regex(HHMM, 'HH:mm, 00:00 to 23:59.');
/** A local date (the whole day) or a local date and time, in the tenant's time zone. */
const LocalMoment = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d)?$/, 'YYYY-MM-DD or YYYY-MM-DDTHH:mm, local to the workspace.');

export const WeeklyHours = z
  .strictObject({
    day: z.enum(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']),
    start: LocalTime,
    end: LocalTime,
    break_minutes: z.number().int().min(0).max(240).default(0),
  })
  .refine((d) => d.end > d.start, { path: ['end'], message: 'Must be after start.' });
export type WeeklyHours = z.output<typeof WeeklyHours>;

export const TimeOff = z
  .strictObject({ start: LocalMoment, end: LocalMoment, reason: z.string().min(1).max(200).optional() })
  .refine((t) => momentMinutes(t.end, 'end') > momentMinutes(t.start, 'start'), { path: ['end'], message: 'Must be after start.' });
export type TimeOff = z.output<typeof TimeOff>;

export const Availability = z
  .strictObject({
    weekly: z
      .array(WeeklyHours)
      .max(7)
      .refine((days) => new Set(days.map((d) => d.day)).size === days.length, { message: 'At most one entry per day.' }),
    time_off: z.array(TimeOff).max(200).default([]),
  })
  .meta({ id: 'TechnicianAvailability' });
export type Availability = z.output<typeof Availability>;

/** D23's default week: Monday to Friday 08:00-17:00 with a 30-minute unpaid break. */
export const DEFAULT_WEEK: readonly WeeklyHours[] = (['mon', 'tue', 'wed', 'thu', 'fri'] as const).map((day) => ({ day, start: '08:00', end: '17:00', break_minutes: 30 }));

/** Minutes since 1970-01-01 local of a local date or date-time (a bare date: its start, or its end's next midnight). */
function momentMinutes(moment: string, side: 'start' | 'end'): number {
  const days = Date.UTC(Number(moment.slice(0, 4)), Number(moment.slice(5, 7)) - 1, Number(moment.slice(8, 10))) / 86_400_000;
  if (moment.length > 10) return days * 1440 + minutesOf(moment.slice(11));
  return (days + (side === 'end' ? 1 : 0)) * 1440;
}

export function weekdayOf(date: string): Weekday {
  return WEEKDAYS[new Date(`${date}T00:00:00Z`).getUTCDay()]!;
}

export interface TechnicianDay {
  weekly: readonly WeeklyHours[] | null;
  timeOff: readonly TimeOff[];
}

/** One crew's day: its shift (null when it has no hours that day) and its time off, as local minutes of the day. */
export interface CrewDay {
  shift: { start: number; end: number; breakMinutes: number } | null;
  timeOff: { start: number; end: number; reason?: string | undefined }[];
}

/** The crew's day on `date`: the intersection of its members' hours, the union of their time off. */
export function crewDay(members: readonly TechnicianDay[], date: string): CrewDay {
  const weekday = weekdayOf(date);
  let shift: CrewDay['shift'] = members.length === 0 ? null : { start: 0, end: 1440, breakMinutes: 0 };
  const timeOff: CrewDay['timeOff'] = [];
  const dayStart = momentMinutes(date, 'start');
  for (const member of members) {
    const hours = (member.weekly ?? DEFAULT_WEEK).find((d) => d.day === weekday);
    if (!hours || !shift) shift = null;
    else {
      const start = Math.max(shift.start, minutesOf(hours.start));
      const end = Math.min(shift.end, minutesOf(hours.end));
      shift = end > start ? { start, end, breakMinutes: Math.max(shift.breakMinutes, hours.break_minutes) } : null;
    }
    for (const off of member.timeOff) {
      const start = momentMinutes(off.start, 'start') - dayStart;
      const end = momentMinutes(off.end, 'end') - dayStart;
      if (end > 0 && start < 1440) timeOff.push({ start: Math.max(0, start), end: Math.min(1440, end), reason: off.reason });
    }
  }
  return { shift, timeOff: timeOff.sort((a, b) => a.start - b.start) };
}

/**
 * The part of a shift left around time off: the longest stretch of it not covered (a crew does
 * not leave a job for time off and come back; an earlier or later stretch is its working day).
 * Null when time off covers the shift.
 */
export function shiftAroundTimeOff(shift: { start: number; end: number }, timeOff: CrewDay['timeOff']): { start: number; end: number } | null {
  let best: { start: number; end: number } | null = null;
  let cursor = shift.start;
  const consider = (start: number, end: number) => {
    if (end > start && (!best || end - start > best.end - best.start)) best = { start, end };
  };
  for (const off of timeOff) {
    if (off.end <= cursor || off.start >= shift.end) continue;
    consider(cursor, Math.min(off.start, shift.end));
    cursor = Math.max(cursor, off.end);
  }
  consider(cursor, shift.end);
  return best;
}

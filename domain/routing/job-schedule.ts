import Decimal from 'decimal.js';
import { ROUTING_DEFAULTS } from './defaults';
import { hhmm, minutesOf } from './clock';
import { DEFAULT_WEEK } from './availability';
import { requiredSkills, type LineForSkills } from './skills';

/**
 * D23: a job's schedule on its date, with the defaults where the office set nothing: the window is
 * the working day (the tenant's working-day start to the default week's end), the duration is the
 * estimated hours not yet logged divided among the crew's headcount (one without a crew), at
 * least 15 minutes, and the skills are those its quote lines imply plus those the office adds.
 */
export interface JobScheduleInput {
  windowStart: string | null;
  windowEnd: string | null;
  durationMinutes: number | null;
  addedSkills: readonly string[];
  lines: readonly LineForSkills[];
  hoursEstimated: string;
  hoursLogged: string;
  headcount: number | null;
  workingDayStart: string;
}

export interface JobSchedule {
  window_start: string;
  window_end: string;
  duration_minutes: number;
  required_skills: string[];
  /** Which of the fields above are D23's defaults rather than set by the office. */
  defaults: ('window' | 'duration_minutes')[];
}

/** The working day's end of the default week (17:00), or an hour after the start if that is later. */
function workingDayEnd(start: string): string {
  const end = minutesOf(DEFAULT_WEEK[0]!.end);
  return hhmm(Math.max(end, Math.min(minutesOf(start) + 60, 23 * 60 + 59)));
}

export function defaultDurationMinutes(hoursEstimated: string, hoursLogged: string, headcount: number | null): number {
  const left = Decimal.max(new Decimal(hoursEstimated).minus(hoursLogged), 0);
  const minutes = left.times(60).div(Math.max(1, headcount ?? 1)).toDecimalPlaces(0, Decimal.ROUND_UP).toNumber();
  return Math.max(ROUTING_DEFAULTS.minimumJobMinutes, minutes);
}

export function jobSchedule(input: JobScheduleInput): JobSchedule {
  const defaults: JobSchedule['defaults'] = [];
  const windowStart = input.windowStart ?? input.workingDayStart;
  const windowEnd = input.windowEnd ?? (input.windowStart && input.windowStart >= workingDayEnd(input.workingDayStart) ? '23:59' : workingDayEnd(input.workingDayStart));
  if (input.windowStart === null || input.windowEnd === null) defaults.push('window');
  let duration = input.durationMinutes;
  if (duration === null) {
    defaults.push('duration_minutes');
    duration = defaultDurationMinutes(input.hoursEstimated, input.hoursLogged, input.headcount);
  }
  return { window_start: windowStart, window_end: windowEnd, duration_minutes: duration, required_skills: requiredSkills(input.lines, input.addedSkills), defaults };
}

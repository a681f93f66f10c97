/**
 * D11 and every local time: a tenant's wall-clock date and time, in its IANA time zone, as an
 * instant, and back. Pure (the runtime's time-zone database through Intl; no clock read).
 */

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallClockAt(instantMs: number, timeZone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(timeZone).formatToParts(new Date(instantMs))) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute!, second: parts.second! };
}

/** The zone's offset from UTC at an instant, in milliseconds (east positive). */
function offsetMsAt(instantMs: number, timeZone: string): number {
  const w = wallClockAt(instantMs, timeZone);
  const wholeSeconds = Math.floor(instantMs / 1000) * 1000;
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - wholeSeconds;
}

/**
 * The instant of `date` (`YYYY-MM-DD`) at `time` (`HH:mm`) on the wall clocks of `timeZone`. A
 * time that a daylight-saving change skips is read with the offset in force before the change
 * (02:30 on a spring-forward night is 03:30 daylight time), as PostgreSQL reads it.
 */
export function localTimeToInstant(date: string, time: string, timeZone: string): Date {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const [hour, minute] = time.split(':').map(Number) as [number, number];
  const asUtc = Date.UTC(year, month - 1, day, hour, minute);
  // The offsets in force a day either side; a change of offset falls between them at most once.
  const earlier = asUtc - offsetMsAt(asUtc - DAY_MS, timeZone);
  const later = asUtc - offsetMsAt(asUtc + DAY_MS, timeZone);
  const fits = [earlier, later].filter((instant) => offsetMsAt(instant, timeZone) === asUtc - instant);
  // A repeated hour fits both: the first time the clock shows it. A skipped one fits neither: the offset before the change.
  return new Date(fits.length > 0 ? Math.min(...fits) : earlier);
}

/** An instant on the zone's wall clock, `YYYY-MM-DDTHH:mm` (D23's `etaLocal`). */
export function instantToLocal(instant: Date, timeZone: string): string {
  const w = wallClockAt(instant.getTime(), timeZone);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${w.year}-${two(w.month)}-${two(w.day)}T${two(w.hour)}:${two(w.minute)}`;
}

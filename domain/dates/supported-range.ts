/**
 * The one date rule: the days and instants every interface takes are those of the years 0001 to
 * 9999 (in UTC for an instant). PostgreSQL has no year 0000 (`0000-01-01` is an error, a 500 if it
 * got that far), and ISO-8601's four-digit years end at 9999; a time zone offset can carry an
 * instant written `0001-01-01T00:00:00+01:00` back into year 0000, so instants are judged in UTC.
 */
const FIRST_DAY = '0001-01-01';
const LAST_DAY = '9999-12-31';

// Parsed, not Date.UTC: Date.UTC reads the years 0 to 99 as 1900 to 1999.
const FIRST_INSTANT_MS = Date.parse(`${FIRST_DAY}T00:00:00.000Z`);
const LAST_INSTANT_MS = Date.parse(`${LAST_DAY}T23:59:59.999Z`);

export const DAY_COMPLAINT = `Must be a day from ${FIRST_DAY} to ${LAST_DAY}`;
export const INSTANT_COMPLAINT = `Must be an instant from ${FIRST_DAY}T00:00:00Z to ${LAST_DAY}T23:59:59.999Z (judged in UTC)`;

/** A `YYYY-MM-DD` day (four-digit years, so none past 9999) inside the range: all but year 0000. */
export const isSupportedDay = (day: string): boolean => day >= FIRST_DAY && day <= LAST_DAY;

/** An ISO-8601 date-time (already of that form) whose instant lies inside the range. */
export function isSupportedInstant(text: string): boolean {
  const ms = Date.parse(text);
  return Number.isFinite(ms) && ms >= FIRST_INSTANT_MS && ms <= LAST_INSTANT_MS;
}

/** Local clock times of a routing day, as minutes since local midnight: one unit everywhere. */

/** `HH:mm` to minutes since midnight. */
export function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return h! * 60 + m!;
}

/** Minutes since midnight to `HH:mm` (past midnight stays past: 24:30 reads 24:30, not 00:30). */
export function hhmm(minutes: number): string {
  const whole = Math.round(minutes);
  return `${String(Math.floor(whole / 60)).padStart(2, '0')}:${String(whole % 60).padStart(2, '0')}`;
}

/** D23's `etaLocal`: the date and the local time, `YYYY-MM-DDTHH:mm` (a time past midnight rolls to the next date). */
export function localDateTime(date: string, minutes: number): string {
  const whole = Math.round(minutes);
  const days = Math.floor(whole / 1440);
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + days);
  return `${day.toISOString().slice(0, 10)}T${hhmm(whole - days * 1440)}`;
}

export const HHMM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

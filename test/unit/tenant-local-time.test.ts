import { describe, expect, it } from '@jest/globals';
import { instantToLocal, localTimeToInstant } from '../../domain/organizations/local-time';
import { isIanaTimeZone, SettingsPatch, withDefaults } from '../../domain/organizations/settings';
import { quoteExpiryCutoff, quoteValidUntil } from '../../domain/quotes/validity';

describe('D11: a tenant\'s wall-clock time in its IANA zone', () => {
  it.each([
    // Standard and daylight time in Toronto, Vancouver; a zone without daylight saving; a half-hour zone.
    ['2026-12-03', '08:00', 'America/Toronto', '2026-12-03T13:00:00.000Z'],
    ['2026-07-03', '08:00', 'America/Toronto', '2026-07-03T12:00:00.000Z'],
    ['2026-07-03', '07:30', 'America/Vancouver', '2026-07-03T14:30:00.000Z'],
    ['2026-07-03', '08:00', 'America/Regina', '2026-07-03T14:00:00.000Z'],
    ['2026-12-03', '08:00', 'America/St_Johns', '2026-12-03T11:30:00.000Z'],
    ['2026-12-03', '08:00', 'UTC', '2026-12-03T08:00:00.000Z'],
    // Spring forward in Toronto (2026-03-08 02:00 -> 03:00): a skipped time is read in standard time.
    ['2026-03-08', '02:30', 'America/Toronto', '2026-03-08T07:30:00.000Z'],
    ['2026-03-08', '08:00', 'America/Toronto', '2026-03-08T12:00:00.000Z'],
    // Fall back (2026-11-01 02:00 -> 01:00): the repeated 01:30 is the first one, in daylight time.
    ['2026-11-01', '01:30', 'America/Toronto', '2026-11-01T05:30:00.000Z'],
    ['2026-11-01', '08:00', 'America/Toronto', '2026-11-01T13:00:00.000Z'],
  ])('%s %s in %s is %s', (date, time, zone, expected) => {
    expect(localTimeToInstant(date, time, zone).toISOString()).toBe(expected);
  });

  it('reads an instant back on the zone\'s wall clock', () => {
    expect(instantToLocal(new Date('2026-07-03T14:30:00Z'), 'America/Vancouver')).toBe('2026-07-03T07:30');
    expect(instantToLocal(new Date('2026-12-03T13:00:00Z'), 'America/Toronto')).toBe('2026-12-03T08:00');
  });

  it('accepts IANA names the runtime knows and refuses offsets, abbreviations that are not zones, and nonsense', () => {
    for (const zone of ['America/Toronto', 'America/Argentina/Buenos_Aires', 'Europe/London', 'UTC', 'Asia/Kolkata']) expect(isIanaTimeZone(zone)).toBe(true);
    for (const zone of ['+05:00', '-0300', 'Mars/Olympus_Mons', '', 'America/', '../etc/passwd', 'America/Toronto '.repeat(5)]) expect(isIanaTimeZone(zone)).toBe(false);
  });
});

describe('D3: the quote validity follows the tenant setting', () => {
  it('a quote is valid for the tenant\'s number of days, and expires after', () => {
    const created = new Date('2026-11-01T15:00:00Z');
    expect(quoteValidUntil(created, 30).toISOString()).toBe('2026-12-01T15:00:00.000Z');
    expect(quoteValidUntil(created, 7).toISOString()).toBe('2026-11-08T15:00:00.000Z');
    expect(quoteExpiryCutoff(new Date('2026-11-08T15:00:01Z'), 7) > created).toBe(true);
    expect(quoteExpiryCutoff(new Date('2026-11-08T14:59:59Z'), 7) > created).toBe(false);
  });
});

describe('settings defaults and the PATCH schema (D11, D3, D23)', () => {
  it('applies every default to a tenant that has set nothing', () => {
    const none = { display_name: null, time_zone: null, working_day_start: null, quote_validity_days: null, depot_lat: null, depot_lon: null, road_factor: null, average_speed_kmh: null, overtime_cap_minutes: null, eta_drift_threshold_minutes: null, dispatch_coalesce_seconds: null, business_address: null, business_phone: null, quote_terms: null };
    expect(withDefaults({ name: 'Acme', ...none })).toEqual({
      display_name: 'Acme', time_zone: 'America/Toronto', working_day_start: '08:00', quote_validity_days: 30, depot: null,
      road_factor: 1.3, average_speed_kmh: 40, overtime_cap_minutes: 60, eta_drift_threshold_minutes: 15, dispatch_coalesce_seconds: 5,
      // D24: no address or phone until set; the default terms.
      business_address: null, business_phone: null, quote_terms: expect.stringContaining('Prices are in Canadian dollars'),
    });
  });

  it('accepts each setting at its bounds', () => {
    const lows = { quote_validity_days: 1, road_factor: 1, average_speed_kmh: 5, overtime_cap_minutes: 0, eta_drift_threshold_minutes: 1, dispatch_coalesce_seconds: 0, depot: { lat: -90, lon: -180 }, working_day_start: '00:00' };
    const highs = { quote_validity_days: 365, road_factor: 3, average_speed_kmh: 130, overtime_cap_minutes: 480, eta_drift_threshold_minutes: 240, dispatch_coalesce_seconds: 300, depot: { lat: 90, lon: 180 }, working_day_start: '23:59' };
    expect(SettingsPatch.safeParse(lows).success).toBe(true);
    expect(SettingsPatch.safeParse(highs).success).toBe(true);
  });
});

import { z } from 'zod';

/**
 * The tenant's settings (D11, D3, D22, D23): what each one is, its default and its bounds, once.
 * `PATCH /api/v1/organization` validates with these schemas, the migration's check constraints
 * carry the same bounds (test/unit/organization-settings.test.ts holds them to each other through
 * behaviour), and every reader applies the defaults through `withDefaults`.
 */
export const SETTING_BOUNDS = {
  quote_validity_days: { min: 1, max: 365 },
  road_factor: { min: 1, max: 3 },
  average_speed_kmh: { min: 5, max: 130 },
  overtime_cap_minutes: { min: 0, max: 480 },
  eta_drift_threshold_minutes: { min: 1, max: 240 },
  dispatch_coalesce_seconds: { min: 0, max: 300 },
} as const;

/** D11, D3, D23: the defaults a tenant has until it sets otherwise. */
export const SETTING_DEFAULTS = {
  time_zone: 'America/Toronto',
  working_day_start: '08:00',
  quote_validity_days: 30,
  road_factor: 1.3,
  average_speed_kmh: 40,
  overtime_cap_minutes: 60,
  eta_drift_threshold_minutes: 15,
  dispatch_coalesce_seconds: 5,
} as const;

/** D24: the terms a quote's page and PDF carry until the workspace sets its own. */
export const DEFAULT_QUOTE_TERMS =
  'Prices are in Canadian dollars; the taxes shown are those of the quote’s province. The quote may be accepted until its validity ends. ' +
  'Accepting it authorizes the work described; the invoice follows by email and is due on receipt. Measurements are confirmed on site before fabrication.';

/** D24: the limits of the contractor's details on quotes. */
export const CONTRACTOR_DETAIL_LIMITS = { business_address: 500, business_phone: 40, quote_terms: 4000 } as const;

export interface Depot {
  lat: number;
  lon: number;
}

/** Every setting with its default applied: what the rest of the code reads. */
export interface OrganizationSettings {
  /** The name the workspace shows; its registered name until one is set. */
  display_name: string;
  /** An IANA time zone: D11's working day and every local time follow it. */
  time_zone: string;
  /** `HH:mm`, local to `time_zone` (D11). */
  working_day_start: string;
  /** D3: DRAFT and SENT quotes older than this many days expire. */
  quote_validity_days: number;
  /** D23: where every crew starts and ends its day; null until set. */
  depot: Depot | null;
  /** D23: great-circle distance times this is the road distance. */
  road_factor: number;
  average_speed_kmh: number;
  /** D23: the daily overtime a route may hold. */
  overtime_cap_minutes: number;
  /** D23: an ETA that moves by more than this fires `dispatch.updated`. */
  eta_drift_threshold_minutes: number;
  /** How long dispatch changes are gathered before one `dispatch.updated` per route. */
  dispatch_coalesce_seconds: number;
  /** D24: the postal address a quote's page and PDF show under the contractor's name; null until set. */
  business_address: string | null;
  /** D24: the phone number a quote's page and PDF show; null until set. */
  business_phone: string | null;
  /** D24: the terms a quote's page and PDF carry (DEFAULT_QUOTE_TERMS until set). */
  quote_terms: string;
}

/** The stored values, null where the tenant has set nothing. */
export interface StoredSettings {
  name: string;
  display_name: string | null;
  time_zone: string | null;
  working_day_start: string | null;
  quote_validity_days: number | null;
  depot_lat: number | null;
  depot_lon: number | null;
  road_factor: number | null;
  average_speed_kmh: number | null;
  overtime_cap_minutes: number | null;
  eta_drift_threshold_minutes: number | null;
  dispatch_coalesce_seconds: number | null;
  business_address: string | null;
  business_phone: string | null;
  quote_terms: string | null;
}

const num = (value: number | string | null) => (value === null ? null : Number(value));

export function withDefaults(stored: StoredSettings): OrganizationSettings {
  const lat = num(stored.depot_lat);
  const lon = num(stored.depot_lon);
  return {
    display_name: stored.display_name ?? stored.name,
    time_zone: stored.time_zone ?? SETTING_DEFAULTS.time_zone,
    working_day_start: stored.working_day_start ?? SETTING_DEFAULTS.working_day_start,
    quote_validity_days: num(stored.quote_validity_days) ?? SETTING_DEFAULTS.quote_validity_days,
    depot: lat === null || lon === null ? null : { lat, lon },
    road_factor: num(stored.road_factor) ?? SETTING_DEFAULTS.road_factor,
    average_speed_kmh: num(stored.average_speed_kmh) ?? SETTING_DEFAULTS.average_speed_kmh,
    overtime_cap_minutes: num(stored.overtime_cap_minutes) ?? SETTING_DEFAULTS.overtime_cap_minutes,
    eta_drift_threshold_minutes: num(stored.eta_drift_threshold_minutes) ?? SETTING_DEFAULTS.eta_drift_threshold_minutes,
    dispatch_coalesce_seconds: num(stored.dispatch_coalesce_seconds) ?? SETTING_DEFAULTS.dispatch_coalesce_seconds,
    business_address: stored.business_address,
    business_phone: stored.business_phone,
    quote_terms: stored.quote_terms ?? DEFAULT_QUOTE_TERMS,
  };
}

/**
 * An IANA zone name (`Region/City` or `UTC`) that the runtime's time-zone database knows. Fixed
 * offsets (`+05:00`) are refused: a tenant's working day follows its region's daylight-saving rules.
 */
export function isIanaTimeZone(name: string): boolean {
  if (!/^(?:[A-Za-z][A-Za-z0-9_+-]*)(?:\/[A-Za-z0-9_+-]+){0,2}$/.test(name) || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const bounded = (key: keyof typeof SETTING_BOUNDS, integer: boolean) => {
  const { min, max } = SETTING_BOUNDS[key];
  const base = integer ? z.int() : z.number();
  return base.min(min, { message: `Must be at least ${min}` }).max(max, { message: `Must be at most ${max}` });
};

/** `HH:mm`, 00:00 to 23:59. */
export const LocalTimeOfDay = z.string().regex(/^(?:[01][0-9]|2[0-3]):[0-5][0-9]$/, { message: 'Must be a time of day HH:mm, such as 08:00' });

export const DepotSchema = z
  .strictObject({
    lat: z.number().min(-90, { message: 'Must be a WGS84 latitude, -90 to 90' }).max(90, { message: 'Must be a WGS84 latitude, -90 to 90' }).meta({ description: 'WGS84 latitude in decimal degrees' }),
    lon: z.number().min(-180, { message: 'Must be a WGS84 longitude, -180 to 180' }).max(180, { message: 'Must be a WGS84 longitude, -180 to 180' }).meta({ description: 'WGS84 longitude in decimal degrees' }),
  })
  .meta({ id: 'Depot' });

/** The settings a PATCH may change; each optional, absent ones unchanged. */
export const SettingsPatch = z.strictObject({
  display_name: z.string().trim().min(1, { message: 'Must not be empty' }).max(200).optional().meta({ description: 'The name the workspace shows' }),
  time_zone: z
    .string()
    .refine(isIanaTimeZone, { message: 'Must be an IANA time zone name, such as America/Toronto' })
    .optional()
    .meta({ description: 'An IANA time zone name; the working day and every local time follow it' }),
  working_day_start: LocalTimeOfDay.optional().meta({ description: '`HH:mm`, local to `time_zone`' }),
  quote_validity_days: bounded('quote_validity_days', true).optional().meta({ description: 'DRAFT and SENT quotes older than this many days expire' }),
  depot: DepotSchema.nullable().optional().meta({ description: 'Where every crew starts and ends its day; null clears it' }),
  road_factor: bounded('road_factor', false)
    .refine((value) => Number(value.toFixed(2)) === value, { message: 'Must have at most two decimals' })
    .optional()
    .meta({ description: 'Road distance over great-circle distance' }),
  average_speed_kmh: bounded('average_speed_kmh', true).optional().meta({ description: 'The average speed between stops, km/h' }),
  overtime_cap_minutes: bounded('overtime_cap_minutes', true).optional().meta({ description: 'The daily overtime a route may hold' }),
  eta_drift_threshold_minutes: bounded('eta_drift_threshold_minutes', true).optional().meta({ description: 'An ETA that moves by more than this fires `dispatch.updated`' }),
  dispatch_coalesce_seconds: bounded('dispatch_coalesce_seconds', true).optional().meta({ description: 'How long dispatch changes are gathered before `dispatch.updated` fires' }),
  business_address: z
    .string()
    .trim()
    .min(1, { message: 'Must not be empty; null clears it' })
    .max(CONTRACTOR_DETAIL_LIMITS.business_address, { message: `At most ${CONTRACTOR_DETAIL_LIMITS.business_address} characters` })
    .nullable()
    .optional()
    .meta({ description: 'The postal address quotes show under the workspace’s name (lines separated by newlines); null clears it' }),
  business_phone: z
    .string()
    .trim()
    .regex(/^\+?[0-9(][0-9 ().-]{5,30}[0-9](?: ?(?:[xX]|[eE][xX][tT]\.?) ?[0-9]{1,6})?$/, { message: 'Must be a phone number, such as +1 604 555 0142 or (604) 555-0142 ext. 12' })
    .max(CONTRACTOR_DETAIL_LIMITS.business_phone)
    .nullable()
    .optional()
    .meta({ description: 'The phone number quotes show; null clears it' }),
  quote_terms: z
    .string()
    .trim()
    .min(1, { message: 'Must not be empty; null returns to the default terms' })
    .max(CONTRACTOR_DETAIL_LIMITS.quote_terms, { message: `At most ${CONTRACTOR_DETAIL_LIMITS.quote_terms} characters` })
    .nullable()
    .optional()
    .meta({ description: 'The terms a quote’s page and PDF carry; null returns to the default' }),
});
export type SettingsPatch = z.output<typeof SettingsPatch>;

/** The settings as the audit log records them: one flat field per setting. */
export function auditableSettings(settings: OrganizationSettings): Record<string, unknown> {
  const { depot, ...rest } = settings;
  return { ...rest, 'depot.lat': depot?.lat ?? null, 'depot.lon': depot?.lon ?? null };
}

import type { z } from 'zod';
import type { Organization, UpdateOrganizationBody } from './schemas';

export const ORGANIZATION_EXAMPLE: z.input<typeof Organization> = {
  id: '0b7e4c1a-2d3f-4e5a-9b6c-7d8e9f0a1b2c',
  name: 'Brightline Shades',
  subdomain: 'brightline',
  plan: 'growth',
  technical_contact_email: 'it@brightline.example',
  technical_contact_is_default: false,
  display_name: 'Brightline Shades & Blinds',
  time_zone: 'America/Vancouver',
  working_day_start: '07:30',
  quote_validity_days: 45,
  depot: { lat: 49.2606, lon: -123.114 },
  road_factor: 1.3,
  average_speed_kmh: 40,
  overtime_cap_minutes: 60,
  eta_drift_threshold_minutes: 15,
  dispatch_coalesce_seconds: 5,
};

export const UPDATE_ORGANIZATION_EXAMPLE: z.input<typeof UpdateOrganizationBody> = {
  display_name: 'Brightline Shades & Blinds',
  time_zone: 'America/Vancouver',
  working_day_start: '07:30',
  quote_validity_days: 45,
  depot: { lat: 49.2606, lon: -123.114 },
};

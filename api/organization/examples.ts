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
  business_address: '1200 West Pender Street\nVancouver, BC V6E 2S9',
  business_phone: '+1 604 555 0142',
  quote_terms: 'Prices are in Canadian dollars; the taxes shown are those of the quote’s province. A 30% deposit is due on acceptance.',
  logo: { content_type: 'image/png', size_bytes: 18_432, width: 480, height: 160, sha256: '9f2c5e0d8b1a4c7e6f3d2b1a0c9e8d7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d', updated_at: '2026-11-20T15:04:05.000Z' },
};

export const UPDATE_ORGANIZATION_EXAMPLE: z.input<typeof UpdateOrganizationBody> = {
  display_name: 'Brightline Shades & Blinds',
  time_zone: 'America/Vancouver',
  working_day_start: '07:30',
  quote_validity_days: 45,
  depot: { lat: 49.2606, lon: -123.114 },
  business_address: '1200 West Pender Street\nVancouver, BC V6E 2S9',
  business_phone: '+1 604 555 0142',
};

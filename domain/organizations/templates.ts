import { z } from 'zod';
import type { RateCardSettings } from '../pricing/rate-card';

/** D22: what `ops tenant create --template` gives a new workspace's first price-book revision. */
export const TENANT_TEMPLATES = ['sandbox', 'empty'] as const;
export type TenantTemplate = (typeof TENANT_TEMPLATES)[number];

/**
 * D2's settings for a workspace that starts from nothing (`--template empty`): the standard
 * constants of the sandbox's card (D1), which the tenant then changes by publishing a revision;
 * no SKUs, labour tiers or products.
 */
export const DEFAULT_RATE_CARD_SETTINGS: RateCardSettings = {
  marginFloor: '0.35',
  fabricWasteFactor: '0.10',
  labourBaseHoursPerUnit: '0.75',
  labourHoursPerSquareFoot: '0.02',
  labourMotorisationHours: '0.5',
  tubeDeductionInches: '1.125',
  hembarDeductionInches: '1.375',
  fabricWidthDeductionInches: '1.5',
  fabricDropAllowanceInches: '12',
};

/** A workspace's subdomain (the organizations table checks the same). */
export const SUBDOMAIN_PATTERN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** D22: what `ops tenant create` takes, validated before anything is made. */
export const TenantCreateInput = z.strictObject({
  subdomain: z.string().regex(SUBDOMAIN_PATTERN, { message: 'Must be 1-63 lower-case letters, digits or hyphens, not starting or ending with a hyphen' }),
  name: z.string().trim().min(1, { message: 'Must not be empty' }).max(200, { message: 'Must be at most 200 characters' }),
  adminEmail: z.email({ message: 'Must be an email address' }).max(320),
  plan: z.enum(['starter', 'growth', 'enterprise'], { message: 'Must be starter, growth or enterprise' }).default('starter'),
  template: z.enum(TENANT_TEMPLATES, { message: 'Must be sandbox or empty' }).default('sandbox'),
});
export type TenantCreateInput = z.output<typeof TenantCreateInput>;

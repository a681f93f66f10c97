import { z } from 'zod';
import { DepotSchema, SettingsPatch } from '../../domain/organizations/settings';

/** D24: the workspace's logo as its settings describe it (its bytes are served only under the quote page). */
export const OrganizationLogo = z
  .strictObject({
    content_type: z.enum(['image/png', 'image/jpeg']),
    size_bytes: z.int().meta({ description: 'At most 262,144 (256 KB)' }),
    width: z.int().meta({ description: 'In pixels' }),
    height: z.int().meta({ description: 'In pixels' }),
    sha256: z.string().meta({ description: 'The SHA-256 of its bytes, hex (what the audit log records of it)' }),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'OrganizationLogo' });

/** D13, D22, D11, D3, D23: the workspace, its technical contact and its settings (defaults applied). */
export const Organization = z
  .strictObject({
    id: z.uuid(),
    name: z.string().meta({ description: 'The name the workspace was registered with (`ops tenant create --name`)' }),
    subdomain: z.string(),
    plan: z.enum(['starter', 'growth', 'enterprise']).meta({ description: 'The plan whose limits `/v1/` meters against; the operator changes it' }),
    technical_contact_email: z.string().nullable().meta({ description: 'Who is emailed when a webhook endpoint is disabled; null only when the workspace has no ADMIN' }),
    technical_contact_is_default: z.boolean().meta({ description: 'True when none is set and this is the first ADMIN\'s email' }),
    display_name: z.string().meta({ description: 'The name the workspace shows; its registered name until one is set' }),
    time_zone: z.string().meta({ description: 'IANA time zone (default America/Toronto): the working day and every local time follow it' }),
    working_day_start: z.string().meta({ description: '`HH:mm` local to `time_zone` (default 08:00): a job\'s scheduled start' }),
    quote_validity_days: z.int().meta({ description: 'DRAFT and SENT quotes older than this many days expire (default 30)' }),
    depot: DepotSchema.nullable().meta({ description: 'Where every crew starts and ends its day; null until set' }),
    road_factor: z.number().meta({ description: 'Road distance over great-circle distance (default 1.3)' }),
    average_speed_kmh: z.int().meta({ description: 'Average speed between stops (default 40)' }),
    overtime_cap_minutes: z.int().meta({ description: 'The daily overtime a route may hold (default 60)' }),
    eta_drift_threshold_minutes: z.int().meta({ description: 'An ETA moving by more than this fires `dispatch.updated` (default 15)' }),
    dispatch_coalesce_seconds: z.int().meta({ description: 'How long dispatch changes are gathered before `dispatch.updated` fires (default 5)' }),
    business_address: z.string().nullable().meta({ description: 'The postal address quotes show under the workspace’s name (lines separated by newlines); null until set' }),
    business_phone: z.string().nullable().meta({ description: 'The phone number quotes show; null until set' }),
    quote_terms: z.string().meta({ description: 'The terms a quote’s page and PDF carry (a default until set)' }),
    logo: OrganizationLogo.nullable().meta({ description: 'The logo quotes show (`PUT /api/v1/organization/logo`); null until one is uploaded' }),
  })
  .meta({ id: 'Organization' });
export type Organization = z.infer<typeof Organization>;

export const UpdateOrganizationBody = SettingsPatch.extend({
  technical_contact_email: z
    .email({ message: 'Must be an email address, such as ops@contractor.example' })
    .max(320)
    .nullable()
    .optional()
    .meta({ description: 'An email address; null returns to the default (the first ADMIN\'s email)' }),
})
  .refine((body) => Object.values(body).some((value) => value !== undefined), { message: 'Name at least one setting to change' })
  .meta({ id: 'UpdateOrganizationRequest' });
export type UpdateOrganizationBody = z.output<typeof UpdateOrganizationBody>;

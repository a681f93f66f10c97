import { z } from 'zod';

/** D13: the workspace and its technical contact, who is emailed when a webhook endpoint is disabled. */
export const Organization = z
  .strictObject({
    id: z.uuid(),
    name: z.string(),
    subdomain: z.string(),
    technical_contact_email: z.string().nullable().meta({ description: 'Who is emailed when a webhook endpoint is disabled; null only when the workspace has no ADMIN' }),
    technical_contact_is_default: z.boolean().meta({ description: 'True when none is set and this is the first ADMIN\'s email' }),
  })
  .meta({ id: 'Organization' });
export type Organization = z.infer<typeof Organization>;

export const UpdateOrganizationBody = z
  .strictObject({
    technical_contact_email: z
      .email({ message: 'Must be an email address, such as ops@contractor.example' })
      .max(320)
      .nullable()
      .meta({ description: 'An email address; null returns to the default (the first ADMIN\'s email)' }),
  })
  .meta({ id: 'UpdateOrganizationRequest' });
export type UpdateOrganizationBody = z.output<typeof UpdateOrganizationBody>;

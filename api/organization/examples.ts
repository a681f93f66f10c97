import type { z } from 'zod';
import type { Organization, UpdateOrganizationBody } from './schemas';

export const ORGANIZATION_EXAMPLE: z.input<typeof Organization> = {
  id: '0b7e4c1a-2d3f-4e5a-9b6c-7d8e9f0a1b2c',
  name: 'Brightline Shades',
  subdomain: 'brightline',
  technical_contact_email: 'it@brightline.example',
  technical_contact_is_default: false,
};

export const UPDATE_ORGANIZATION_EXAMPLE: z.input<typeof UpdateOrganizationBody> = { technical_contact_email: 'it@brightline.example' };

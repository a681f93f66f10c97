import { z } from 'zod';
import { ROLES } from '../../db/entities/user';
import { Timestamp } from '../http/common-schemas';

/** Section 4.2. */
export const LoginBody = z
  .strictObject({
    subdomain: z
      .string()
      .min(1)
      .max(63)
      .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, 'Lowercase letters, digits and hyphens, starting and ending with a letter or digit'),
    email: z.email().max(320),
    password: z.string().min(1).max(200),
  })
  .meta({ id: 'LoginRequest' });
export type LoginBody = z.infer<typeof LoginBody>;

export const LoginResult = z
  .strictObject({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().positive(),
    user: z.strictObject({ id: z.uuid(), email: z.email(), role: z.enum(ROLES), organization_id: z.uuid() }),
  })
  .meta({ id: 'LoginResult' });

export const Profile = z
  .strictObject({
    id: z.uuid(),
    email: z.string(),
    full_name: z.string(),
    role: z.enum(ROLES),
    last_login_at: Timestamp.nullable(),
    organization: z.strictObject({ id: z.uuid(), name: z.string(), subdomain: z.string() }),
  })
  .meta({ id: 'Profile' });

import type { z } from 'zod';
import type { LoginBody, LoginResult, Profile } from './schemas';
import { SANDBOX_PASSWORD } from '../../db/sandbox';

/** Examples for the OpenAPI document: the sandbox's ADMIN (D1). */
export const SANDBOX_ORGANIZATION_ID = '0b6a3f2e-5d4c-4b8a-9f1e-2c3d4e5f6a7b';
export const SANDBOX_ADMIN_ID = '8d2e4f6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a';

export const LOGIN_EXAMPLE: z.input<typeof LoginBody> = { subdomain: 'sandbox', email: 'admin@sandbox.test', password: SANDBOX_PASSWORD };

export const LOGIN_RESULT_EXAMPLE: z.input<typeof LoginResult> = {
  // Shape only: three base64url parts; not a token any deployment would accept.
  access_token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI4ZDJlNGY2YS0xYjNjLTRkNWUtOGY3YS05YjBjMWQyZTNmNGEiLCJyb2xlIjoiQURNSU4ifQ.c2lnbmF0dXJlLW9mLXRoZS1leGFtcGxl',
  token_type: 'Bearer',
  expires_in: 900,
  user: { id: SANDBOX_ADMIN_ID, email: 'admin@sandbox.test', role: 'ADMIN', organization_id: SANDBOX_ORGANIZATION_ID },
};

export const PROFILE_EXAMPLE: z.input<typeof Profile> = {
  id: SANDBOX_ADMIN_ID,
  email: 'admin@sandbox.test',
  full_name: 'Avery Admin',
  role: 'ADMIN',
  last_login_at: '2026-11-23T09:30:00.000Z',
  organization: { id: SANDBOX_ORGANIZATION_ID, name: 'Sandbox Shade Co.', subdomain: 'sandbox' },
};

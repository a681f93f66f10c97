import type { z } from 'zod';
import type {
  AcceptInvitationBody,
  ChangePasswordBody,
  ConfirmPasswordResetBody,
  Invitation,
  InvitationBody,
  PasswordResetBody,
  TeamUserList,
  UpdatedTeamUser,
  UpdateProfileBody,
  UpdateUserBody,
} from './schemas';
import { SANDBOX_ADMIN_ID } from '../auth/examples';

/** Examples of the team's routes (D20), in the sandbox workspace. */
const INVITED_ID = '4c7e9a1b-2d3f-4a5b-8c6d-7e8f9a0b1c2d';
const TECHNICIAN_ID = '6e1f2a3b-4c5d-4e6f-9a7b-8c9d0e1f2a3b';
/** Shape only: 43 base64url characters, as the emailed links carry. */
const LINK_TOKEN = 'Q2hvb3NlLWEtcGFzc3dvcmQtZnJvbS10aGUtZW1haWw';

export const TEAM_USER_LIST_EXAMPLE: z.input<typeof TeamUserList> = {
  data: [
    { id: SANDBOX_ADMIN_ID, email: 'admin@sandbox.test', full_name: 'Avery Admin', role: 'ADMIN', status: 'active', last_login_at: '2026-11-23T09:30:00.000Z', created_at: '2026-11-01T08:00:00.000Z' },
    { id: INVITED_ID, email: 'sam@sandbox.test', full_name: 'Sam Sales', role: 'SALES', status: 'invited', last_login_at: null, created_at: '2026-11-24T10:15:00.000Z' },
  ],
};

export const INVITATION_EXAMPLE: z.input<typeof InvitationBody> = { email: 'sam@sandbox.test', full_name: 'Sam Sales', role: 'SALES' };

export const INVITATION_RESULT_EXAMPLE: z.input<typeof Invitation> = {
  id: INVITED_ID,
  email: 'sam@sandbox.test',
  full_name: 'Sam Sales',
  role: 'SALES',
  status: 'invited',
  invitation_expires_at: '2026-11-27T10:15:00.000Z',
};

export const ACCEPT_INVITATION_EXAMPLE: z.input<typeof AcceptInvitationBody> = { token: LINK_TOKEN, full_name: 'Samira Sales', password: 'velvet-ladder-orbit-47' };

export const PASSWORD_RESET_EXAMPLE: z.input<typeof PasswordResetBody> = { subdomain: 'sandbox', email: 'sam@sandbox.test' };

export const CONFIRM_PASSWORD_RESET_EXAMPLE: z.input<typeof ConfirmPasswordResetBody> = { token: LINK_TOKEN, password: 'copper-meadow-tide-82' };

export const CHANGE_PASSWORD_EXAMPLE: z.input<typeof ChangePasswordBody> = { current_password: 'velvet-ladder-orbit-47', new_password: 'copper-meadow-tide-82' };

export const UPDATE_PROFILE_EXAMPLE: z.input<typeof UpdateProfileBody> = { full_name: 'Samira Sales' };

export const UPDATE_USER_EXAMPLE: z.input<typeof UpdateUserBody> = { status: 'deactivated' };

export const UPDATED_USER_EXAMPLE: z.input<typeof UpdatedTeamUser> = {
  id: TECHNICIAN_ID,
  email: 'tess@sandbox.test',
  full_name: 'Tess Technician',
  role: 'TECHNICIAN',
  status: 'deactivated',
  last_login_at: '2026-11-22T07:45:00.000Z',
  created_at: '2026-11-01T08:00:00.000Z',
  affected_jobs: [{ job_id: '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d', crew_id: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f', status: 'scheduled', scheduled_date: '2026-12-02' }],
};

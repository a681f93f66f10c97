import { z } from 'zod';
import { ROLES } from '../../db/entities/user';
import { Timestamp } from '../http/common-schemas';
import { CursorParam } from '../http/pagination';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, PASSWORD_TOO_LONG, PASSWORD_TOO_SHORT } from '../../domain/team/passwords';
import { USER_STATUSES } from '../../domain/team/team-rules';
import { LoginBody } from '../auth/schemas';

/** The team (D20). */

const FullName = z.string().trim().min(1).max(200);
const Email = z.email({ message: 'Must be an email address, such as ana@contractor.example' }).max(320);
const Password = z
  .string()
  .min(PASSWORD_MIN_LENGTH, PASSWORD_TOO_SHORT)
  .max(PASSWORD_MAX_LENGTH, PASSWORD_TOO_LONG)
  .meta({ description: `${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters, not a common password, not containing your email's name.` });
/** Opaque, from the emailed link; any token that cannot be used answers the same 400. */
const LinkToken = z.string().min(1).max(512).meta({ description: 'The token of the emailed link.' });

export const TeamUser = z
  .strictObject({
    id: z.uuid(),
    email: z.string(),
    full_name: z.string(),
    role: z.enum(ROLES),
    status: z.enum(USER_STATUSES),
    last_login_at: Timestamp.nullable(),
    created_at: Timestamp,
  })
  .meta({ id: 'TeamUser' });
export type TeamUser = z.infer<typeof TeamUser>;

export const TeamUserList = z.strictObject({ data: z.array(TeamUser) }).meta({ id: 'TeamUserList' });

export const TeamUserQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: CursorParam,
});
export type TeamUserQuery = z.output<typeof TeamUserQuery>;

export const InvitationBody = z.strictObject({ email: Email, full_name: FullName, role: z.enum(ROLES) }).meta({ id: 'InvitationRequest' });
export type InvitationBody = z.output<typeof InvitationBody>;

export const Invitation = z
  .strictObject({
    id: z.uuid(),
    email: z.string(),
    full_name: z.string(),
    role: z.enum(ROLES),
    status: z.literal('invited'),
    invitation_expires_at: Timestamp,
  })
  .meta({ id: 'Invitation' });
export type Invitation = z.infer<typeof Invitation>;

export const AcceptInvitationBody = z
  .strictObject({ token: LinkToken, full_name: FullName.optional(), password: Password })
  .meta({ id: 'AcceptInvitationRequest' });
export type AcceptInvitationBody = z.output<typeof AcceptInvitationBody>;

export const PasswordResetBody = z.strictObject({ subdomain: LoginBody.shape.subdomain, email: Email }).meta({ id: 'PasswordResetRequest' });
export type PasswordResetBody = z.output<typeof PasswordResetBody>;

export const PasswordResetAccepted = z.strictObject({ accepted: z.literal(true) }).meta({ id: 'PasswordResetAccepted' });

export const ConfirmPasswordResetBody = z.strictObject({ token: LinkToken, password: Password }).meta({ id: 'ConfirmPasswordResetRequest' });
export type ConfirmPasswordResetBody = z.output<typeof ConfirmPasswordResetBody>;

export const ChangePasswordBody = z
  .strictObject({ current_password: z.string().min(1).max(PASSWORD_MAX_LENGTH), new_password: Password })
  .meta({ id: 'ChangePasswordRequest' });
export type ChangePasswordBody = z.output<typeof ChangePasswordBody>;

export const UpdateProfileBody = z.strictObject({ full_name: FullName }).meta({ id: 'UpdateProfileRequest' });
export type UpdateProfileBody = z.output<typeof UpdateProfileBody>;

export const UpdateUserBody = z
  .strictObject({
    full_name: FullName.optional(),
    role: z.enum(ROLES).optional(),
    status: z.enum(['active', 'deactivated']).optional(),
  })
  .meta({ id: 'UpdateUserRequest' });
export type UpdateUserBody = z.output<typeof UpdateUserBody>;

export const AffectedJob = z
  .strictObject({ job_id: z.uuid(), crew_id: z.uuid(), status: z.string(), scheduled_date: z.string().nullable() })
  .meta({ id: 'AffectedJob' });

export const UpdatedTeamUser = TeamUser.extend({
  affected_jobs: z
    .array(AffectedJob)
    .meta({ description: 'The open jobs of the crews a technician left (deactivated, or no longer a TECHNICIAN); empty otherwise.' }),
}).meta({ id: 'UpdatedTeamUser' });
export type UpdatedTeamUser = z.infer<typeof UpdatedTeamUser>;

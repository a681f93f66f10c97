import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { inTenant, selectTenant } from '../../db/tenant-scope';
import { recordLogin, resolveWorkspace, userByEmailForLogin, type LoginUserRow } from '../../db/users';
import { invalidCredentials } from '../../domain/errors/errors';
import { refuseIfSuspended } from '../../domain/organizations/suspension';
import { ACCESS_TOKEN_SECONDS, type TokenService } from './tokens';
import type { LoginBody, LoginResult } from './schemas';

/** The nil UUID: no organization has it, so row-level security shows no row under it. */
const NO_TENANT = '00000000-0000-0000-0000-000000000000';

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
}

/**
 * Section 4.2 and 5.5: the four ways to fail (wrong password, unknown email, unknown workspace,
 * deactivated account) answer the same body after the same work, because exactly one hash is
 * verified in every case: a dummy hash stands in when there is no usable user.
 */
export class LoginService {
  private dummyHash: Promise<string>;

  constructor(
    private readonly em: EntityManager,
    private readonly tokens: TokenService,
    private readonly hasher: PasswordHasher,
  ) {
    this.dummyHash = hasher.hash(randomBytes(24).toString('base64url'));
  }

  /** Login rate-limit key: the normalised identity being attempted (section 8), hashed. */
  static identityKey(body: LoginBody): string {
    return createHash('sha256').update(`${body.subdomain}\n${body.email.trim().toLowerCase()}`).digest('hex');
  }

  async login(body: LoginBody): Promise<z.infer<typeof LoginResult>> {
    const { organizationId, user } = await this.findAccount(body.subdomain, body.email);
    const passwordMatches = await this.hasher.verify(user?.password_hash ?? (await this.dummyHash), body.password);
    if (!organizationId || !user || !user.active || !passwordMatches) throw invalidCredentials();
    // D22: told only to someone who knows the password, so it reveals nothing to a guesser.
    refuseIfSuspended(user);

    await inTenant(this.em, organizationId, (tx) => recordLogin(tx, user.id));
    const token = await this.tokens.issue({ userId: user.id, organizationId, role: user.role, tokenVersion: user.token_version });
    return {
      access_token: token,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_SECONDS,
      user: { id: user.id, email: user.email, role: user.role, organization_id: organizationId },
    };
  }

  /**
   * The workspace and the user in one transaction of the same statements whatever exists: an
   * unknown workspace still looks the user up, under a tenant id no workspace has, so no cause
   * of failure skips a round trip the others make (section 4.2: "the same timing").
   */
  private findAccount(subdomain: string, email: string): Promise<{ organizationId: string | null; user: LoginUserRow | undefined }> {
    return this.em.fork().transactional(async (tx) => {
      const organizationId = await resolveWorkspace(tx, subdomain);
      await selectTenant(tx, organizationId ?? NO_TENANT);
      return { organizationId, user: await userByEmailForLogin(tx, email.trim()) };
    });
  }

}

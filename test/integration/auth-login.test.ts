import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { LoginResult, Profile } from '../../api/auth/schemas';
import { defaultHasher } from '../../api/app';
import type { PasswordHasher } from '../../api/auth/login-service';
import { TokenService } from '../../api/auth/tokens';
import { SANDBOX_PASSWORD } from '../../db/sandbox';

/** Counts how many hashes each login verifies (section 4.2: the same work in every case). */
class CountingHasher implements PasswordHasher {
  verifications = 0;
  hash = defaultHasher.hash;
  verify = async (hash: string, password: string) => {
    this.verifications++;
    return defaultHasher.verify(hash, password);
  };
}

let owner: pg.Pool;
let api: ApiHarness;
let hasher: CountingHasher;
let tenant: Tenant;

beforeAll(async () => {
  owner = ownerPool();
  hasher = new CountingHasher();
  api = await startApi({ hasher });
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN', gone: 'TECHNICIAN' });
  await owner.query('update users set active = false where id = $1', [tenant.users.gone!.id]);
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

const login = (body: unknown) => api.request('/api/v1/auth/login', { method: 'POST', json: body });

describe('POST /api/v1/auth/login', () => {
  it('logs a sandbox user in (D1) with the LoginResult shape and a 900-second token', async () => {
    const res = await login({ subdomain: 'sandbox-alt', email: 'sales@sandbox.test', password: SANDBOX_PASSWORD });
    expect(res.status).toBe(200);
    const body = LoginResult.parse(await res.json());
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 900, user: { email: 'sales@sandbox.test', role: 'SALES' } });
    const me = await api.request('/api/v1/auth/me', { token: body.access_token });
    expect(me.status).toBe(200);
    const profile = Profile.parse(await me.json());
    expect(profile.organization.subdomain).toBe('sandbox-alt');
    expect(profile.last_login_at).not.toBeNull();
    expect(Date.now() - Date.parse(profile.last_login_at!)).toBeLessThan(60_000);
  });

  it('answers the four rejections identically, each after verifying exactly one hash', async () => {
    const { admin, gone } = tenant.users as Required<Tenant['users']>;
    const cases = {
      wrongPassword: { subdomain: tenant.subdomain, email: admin!.email, password: 'not-the-password' },
      unknownEmail: { subdomain: tenant.subdomain, email: 'nobody@example.test', password: admin!.password },
      unknownWorkspace: { subdomain: 'no-such-workspace', email: admin!.email, password: admin!.password },
      deactivated: { subdomain: tenant.subdomain, email: gone!.email, password: gone!.password },
    };
    const bodies: unknown[] = [];
    for (const [name, body] of Object.entries(cases)) {
      const before = hasher.verifications;
      const res = await login(body);
      expect({ name, status: res.status }).toEqual({ name, status: 401 });
      expect({ name, verified: hasher.verifications - before }).toEqual({ name, verified: 1 });
      const json = (await res.json()) as { error: { request_id: string } };
      bodies.push({ ...json, error: { ...json.error, request_id: 'x' } });
    }
    expect(bodies[0]).toEqual({ error: { code: 'invalid_credentials', message: expect.any(String), details: null, request_id: 'x' } });
    for (const body of bodies) expect(body).toEqual(bodies[0]);
    // And a success is one verification too.
    const before = hasher.verifications;
    expect((await login({ subdomain: tenant.subdomain, email: admin!.email, password: admin!.password })).status).toBe(200);
    expect(hasher.verifications - before).toBe(1);
  });

  it('never derives the workspace from the email: the same email in another workspace is another account', async () => {
    const res = await login({ subdomain: 'sandbox', email: tenant.users.admin!.email, password: tenant.users.admin!.password });
    expect(res.status).toBe(401);
  });

  it.each([
    [{ subdomain: 'sandbox', email: 'a@b.test', password: 'x', extra: 1 }, 'extra'],
    [{ subdomain: 'Sandbox', email: 'a@b.test', password: 'x' }, 'subdomain'],
    [{ subdomain: '-sandbox', email: 'a@b.test', password: 'x' }, 'subdomain'],
    [{ subdomain: 'a'.repeat(64), email: 'a@b.test', password: 'x' }, 'subdomain'],
    [{ subdomain: 'sandbox', email: 'not-an-email', password: 'x' }, 'email'],
    [{ subdomain: 'sandbox', email: `${'a'.repeat(320)}@b.test`, password: 'x' }, 'email'],
    [{ subdomain: 'sandbox', email: 'a@b.test', password: '' }, 'password'],
    [{ subdomain: 'sandbox', email: 'a@b.test', password: 'p'.repeat(201) }, 'password'],
    [{ subdomain: 'sandbox', email: 'a@b.test' }, 'password'],
  ])('rejects case %# with 422 naming %s', async (body, field) => {
    const res = await login(body);
    expect(res.status).toBe(422);
    const json = (await res.json()) as { error: { code: string; details: { fields: Record<string, string> } } };
    expect(json.error.code).toBe('validation_failed');
    expect(Object.keys(json.error.details.fields)).toContain(field);
  });
});

describe('login rate limit (section 8)', () => {
  it('allows ten attempts per workspace+email in fifteen minutes, counted after validation and normalised', async () => {
    const target = await createTenant(owner, { victim: 'SALES', bystander: 'SALES' });
    const victim = target.users.victim!;
    // Invalid bodies are not counted.
    for (let i = 0; i < 3; i++) expect((await login({ subdomain: target.subdomain, email: victim.email, password: '' })).status).toBe(422);
    for (let i = 1; i <= 10; i++) {
      // Case and spacing variants of the email are the same identity.
      const email = i % 2 ? victim.email.toUpperCase() : victim.email;
      const res = await login({ subdomain: target.subdomain, email, password: 'wrong-password' });
      expect(res.status).toBe(401);
      expect(res.headers.get('ratelimit')).toMatch(new RegExp(`^limit=10, remaining=${10 - i}, reset=\\d+$`));
      expect(res.headers.get('ratelimit-policy')).toBe('10;w=900');
    }
    // The eleventh is refused even with the right password, and says when to come back.
    const refused = await login({ subdomain: target.subdomain, email: victim.email, password: victim.password });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(refused.headers.get('x-ratelimit-limit')).toBeNull();
    // Another identity is unaffected.
    const other = target.users.bystander!;
    expect((await login({ subdomain: target.subdomain, email: other.email, password: other.password })).status).toBe(200);
  });

  // docs/decisions.md: failures are what is counted; a success clears them.
  it('never refuses someone who keeps logging in successfully', async () => {
    const t = await createTenant(owner, { person: 'SALES' });
    const person = t.users.person!;
    for (let i = 1; i <= 12; i++) {
      const res = await login({ subdomain: t.subdomain, email: person.email, password: person.password });
      expect({ i, status: res.status }).toEqual({ i, status: 200 });
      expect(res.headers.get('ratelimit')).toBe('limit=10, remaining=10, reset=0');
      expect(res.headers.get('ratelimit-policy')).toBe('10;w=900');
    }
  });

  it('a success clears the failures counted before it; failures after it count from ten again', async () => {
    const t = await createTenant(owner, { person: 'SALES' });
    const person = t.users.person!;
    const wrong = () => login({ subdomain: t.subdomain, email: person.email, password: 'wrong-password' });
    for (let i = 1; i <= 9; i++) expect((await wrong()).headers.get('ratelimit')).toMatch(new RegExp(`^limit=10, remaining=${10 - i}, `));
    expect((await login({ subdomain: t.subdomain, email: person.email, password: person.password })).status).toBe(200);
    for (let i = 1; i <= 10; i++) {
      const res = await wrong();
      expect({ i, status: res.status }).toEqual({ i, status: 401 });
      expect(res.headers.get('ratelimit')).toMatch(new RegExp(`^limit=10, remaining=${10 - i}, `));
    }
    expect((await login({ subdomain: t.subdomain, email: person.email, password: person.password })).status).toBe(429);
  });
});

describe('bearer tokens (section 5)', () => {
  it('re-reads the user on every request: a role change applies, a deactivation revokes at once', async () => {
    const t = await createTenant(owner, { person: 'SALES' });
    const person = t.users.person!;
    const res = await login({ subdomain: t.subdomain, email: person.email, password: person.password });
    const { access_token } = LoginResult.parse(await res.json());
    await owner.query(`update users set role = 'ADMIN' where id = $1`, [person.id]);
    const me = await api.request('/api/v1/auth/me', { token: access_token });
    expect(((await me.json()) as { role: string }).role).toBe('ADMIN');
    await owner.query('update users set active = false where id = $1', [person.id]);
    const after = await api.request('/api/v1/auth/me', { token: access_token });
    expect(after.status).toBe(401);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe('unauthenticated');
  });

  it('refuses missing, malformed, foreign, expired and cross-tenant tokens with 401 unauthenticated', async () => {
    const t = await createTenant(owner, { admin: 'ADMIN' });
    const admin = t.users.admin!;
    const foreign = await new TokenService('another-deployment-secret-of-32-chars!!').issue({ userId: admin.id, organizationId: admin.organizationId, role: 'ADMIN' });
    const expired = await new TokenService(api.settings.AUTH_TOKEN_SECRET, () => Date.now() - 901_000).issue({ userId: admin.id, organizationId: admin.organizationId, role: 'ADMIN' });
    const other = await createTenant(owner, { x: 'ADMIN' });
    const wrongTenant = await api.tokenFor({ id: admin.id, organizationId: other.id, role: 'ADMIN' });
    const headers: (string | undefined)[] = [undefined, 'Bearer', 'Bearer not.a.jwt', 'Basic abc', `Bearer ${foreign}`, `Bearer ${expired}`, `Bearer ${wrongTenant}`];
    for (const authorization of headers) {
      const res = await api.request('/api/v1/auth/me', { headers: authorization ? { authorization } : {} });
      expect({ authorization, status: res.status }).toEqual({ authorization, status: 401 });
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthenticated');
    }
    expect((await api.request('/api/v1/auth/me', { token: await api.tokenFor(admin) })).status).toBe(200);
  });

  // Correctly signed tokens whose claims are not ours are refused: neither a 500 (non-UUID org or
  // sub) nor accepted (no exp).
  it('refuses signed tokens with a non-UUID org or sub, without exp, or with an unknown role, with 401', async () => {
    const t = await createTenant(owner, { admin: 'ADMIN' });
    const admin = t.users.admin!;
    const key = new TextEncoder().encode(api.settings.AUTH_TOKEN_SECRET);
    const now = Math.floor(Date.now() / 1000);
    const forge = (claims: Record<string, unknown>, subject: string | undefined, expires: number | undefined) => {
      let jwt = new SignJWT({ org: admin.organizationId, role: 'ADMIN', ver: 0, ...claims })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer('shade-office')
        .setAudience('shade-office-api')
        .setJti(randomUUID())
        .setIssuedAt(now);
      if (subject !== undefined) jwt = jwt.setSubject(subject);
      if (expires !== undefined) jwt = jwt.setExpirationTime(expires);
      return jwt.sign(key);
    };
    const cases: Record<string, string> = {
      orgNotUuid: await forge({ org: 'not-a-uuid' }, admin.id, now + 600),
      orgNumber: await forge({ org: 42 }, admin.id, now + 600),
      subNotUuid: await forge({}, "1' or '1'='1", now + 600),
      noSub: await forge({}, undefined, now + 600),
      noExp: await forge({}, admin.id, undefined),
      tooLong: await forge({}, admin.id, now + 30 * 24 * 3600),
      roleUnknown: await forge({ role: 'ROOT' }, admin.id, now + 600),
      // D20: every token carries the user's token version.
      noVersion: await forge({ ver: undefined }, admin.id, now + 600),
      versionNegative: await forge({ ver: -1 }, admin.id, now + 600),
    };
    for (const [name, token] of Object.entries(cases)) {
      const res = await api.request('/api/v1/auth/me', { token });
      expect({ name, status: res.status }).toEqual({ name, status: 401 });
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthenticated');
    }
    // The same forging, done right, is accepted: the refusals above are the claims'.
    expect((await api.request('/api/v1/auth/me', { token: await forge({}, admin.id, now + 600) })).status).toBe(200);
  });
});

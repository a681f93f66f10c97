import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { randomBytes, randomUUID } from 'node:crypto';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { startMailCatcher, type MailCatcher, type CaughtMail } from '../../scripts/infra/mail-catcher';
import { waitUntil } from '../../scripts/harness/wait-until';
import { nextLink } from '../support/link-header';
import { TeamUserList, Invitation, UpdatedTeamUser } from '../../api/team/schemas';
import { LoginResult, Profile } from '../../api/auth/schemas';
import { UNUSABLE_TOKEN_MESSAGE, INVITATION_RESENDS_PER_HOUR, INVITATIONS_PER_HOUR } from '../../domain/team/team-rules';
import { hashLinkToken } from '../../infra/team/links';
import { LINK_REDEMPTION_LIMIT } from '../../api/http/rate-limit';

/**
 * D20, the team, through the API against PostgreSQL and a real SMTP server (the mail catcher
 * `npm start` runs), reading the links back from the mail as a person would. Every change is
 * checked in the audit log (D22), which never holds a token, hash or password.
 */
const BASE_URL = 'http://127.0.0.1:3998';
let owner: pg.Pool;
let api: ApiHarness;
let catcher: MailCatcher;
let tenant: Tenant;
let other: Tenant;
let admin: string;
let otherAdmin: string;
/** Every link token and password this file used, searched for in the audit log at the end. */
const secrets: string[] = [];

const strong = () => {
  const password = `lantern-${randomBytes(6).toString('hex')}-quay`;
  secrets.push(password);
  return password;
};

beforeAll(async () => {
  owner = ownerPool();
  catcher = await startMailCatcher();
  api = await startApi({ env: { SMTP_URL: catcher.smtpUrl, PUBLIC_BASE_URL: BASE_URL } });
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN' });
  other = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES' });
  admin = await api.tokenFor(tenant.users.admin!);
  otherAdmin = await api.tokenFor(other.users.admin!);
}, 120_000);
afterAll(async () => {
  await api.close();
  await catcher.stop();
  await owner.end();
});

const uniqueEmail = (name: string) => `${name}-${randomBytes(4).toString('hex')}@${tenant.subdomain}.test`;

/** The newest mail to `to`, once it has arrived (and is not one of `seen`). */
async function mailTo(to: string, seen: string[] = [], subject = /./): Promise<CaughtMail> {
  return waitUntil(
    `a mail to ${to}`,
    async () => {
      const mail = (await catcher.messages()).filter((m) => m.to.some((t) => t.address.toLowerCase() === to.toLowerCase()) && !seen.includes(m.id) && subject.test(m.subject));
      return mail[mail.length - 1];
    },
    { timeoutMs: 15_000 },
  );
}

function tokenOf(mail: CaughtMail, page: 'accept-invitation' | 'reset-password'): string {
  const match = new RegExp(`${BASE_URL.replace(/[.]/g, '\\.')}/${page}\\?token=([A-Za-z0-9_-]+)`).exec(mail.text);
  if (!match?.[1]) throw new Error(`no ${page} link in: ${mail.text}`);
  secrets.push(match[1]);
  return match[1];
}

async function invite(token: string, body: { email: string; full_name: string; role: string }): Promise<{ invitation: Invitation; link: string; mail: CaughtMail }> {
  const res = await api.request('/api/v1/users/invitations', { method: 'POST', token, json: body });
  expect(res.status).toBe(201);
  const invitation = Invitation.parse(await res.json());
  const mail = await mailTo(body.email);
  return { invitation, link: tokenOf(mail, 'accept-invitation'), mail };
}

async function errorOf(res: Response): Promise<{ code: string; message: string; details?: { fields?: Record<string, string> } | null }> {
  return ((await res.json()) as { error: { code: string; message: string; details?: { fields?: Record<string, string> } | null } }).error;
}

async function login(email: string, password: string, subdomain = tenant.subdomain): Promise<Response> {
  return api.request('/api/v1/auth/login', { method: 'POST', json: { subdomain, email, password } });
}

async function auditOf(entityId: string): Promise<{ action: string; actor_type: string; actor_id: string | null; changes: { field: string; before: unknown; after: unknown }[]; request_id: string | null }[]> {
  const { rows } = await owner.query('select action, actor_type, actor_id, changes, request_id from audit_events where entity_id = $1 order by occurred_at, id', [entityId]);
  return rows;
}

describe('D20: the users list', () => {
  it('lists the workspace users with their status, paged by Link, to ADMIN only', async () => {
    const seen: string[] = [];
    let path: string | undefined = '/api/v1/users?limit=2';
    while (path) {
      const res: Response = await api.request(path, { token: admin });
      expect(res.status).toBe(200);
      const page = TeamUserList.parse(await res.json());
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((u) => u.email));
      const next = nextLink(res);
      path = next ? new URL(next).pathname + new URL(next).search : undefined;
    }
    expect(seen).toEqual(expect.arrayContaining([tenant.users.admin!.email, tenant.users.sales!.email, tenant.users.tech!.email]));
    expect(new Set(seen).size).toBe(seen.length);
    expect((await api.request('/api/v1/users', { token: await api.tokenFor(tenant.users.sales!) })).status).toBe(403);
    expect((await api.request('/api/v1/users?limit=0', { token: admin })).status).toBe(422);
    expect((await api.request('/api/v1/users?cursor=not-ours', { token: admin })).status).toBe(400);
  });
});

describe('D20: invitations', () => {
  it('invites by email with a 72-hour link under PUBLIC_BASE_URL; accepting makes the user active and logs them in', async () => {
    const email = uniqueEmail('ines');
    const before = Date.now();
    const { invitation, link, mail } = await invite(admin, { email, full_name: 'Ines Invitee', role: 'SALES' });
    expect(invitation).toMatchObject({ email, full_name: 'Ines Invitee', role: 'SALES', status: 'invited' });
    const expires = Date.parse(invitation.invitation_expires_at);
    expect(expires - before).toBeGreaterThan(72 * 3600_000 - 60_000);
    expect(expires - before).toBeLessThan(72 * 3600_000 + 60_000);
    expect(mail.subject).toMatch(/invited/i);
    // Stored hashed: the table holds the SHA-256 of the link's token, never the token.
    const { rows } = await owner.query<{ token_hash: string }>('select token_hash from user_tokens where user_id = $1', [invitation.id]);
    expect(rows.map((r) => r.token_hash)).toEqual([hashLinkToken(link)]);
    expect(JSON.stringify(rows)).not.toContain(link);

    const listed = TeamUserList.parse(await (await api.request('/api/v1/users?limit=100', { token: admin })).json());
    expect(listed.data.find((u) => u.id === invitation.id)?.status).toBe('invited');
    // An invited user cannot log in before accepting.
    expect((await login(email, 'anything-at-all-123')).status).toBe(401);

    const password = strong();
    const accepted = await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: link, full_name: 'Ines Accepted', password } });
    expect(accepted.status).toBe(200);
    const result = LoginResult.parse(await accepted.json());
    expect(result.user).toMatchObject({ id: invitation.id, email, role: 'SALES', organization_id: tenant.id });
    const me = Profile.parse(await (await api.request('/api/v1/auth/me', { token: result.access_token })).json());
    expect(me.full_name).toBe('Ines Accepted');
    expect((await login(email, password)).status).toBe(200);

    const audit = await auditOf(invitation.id);
    expect(audit.map((a) => a.action)).toEqual(['user.invited', 'user.invitation_accepted']);
    expect(audit[0]).toMatchObject({ actor_type: 'user', actor_id: tenant.users.admin!.id });
    expect(audit[0]!.changes).toEqual(expect.arrayContaining([{ field: 'email', before: null, after: email }, { field: 'status', before: null, after: 'invited' }]));
    expect(audit[1]).toMatchObject({ actor_type: 'user', actor_id: invitation.id });
    expect(audit[1]!.changes).toEqual(
      expect.arrayContaining([
        { field: 'status', before: 'invited', after: 'active' },
        { field: 'full_name', before: 'Ines Invitee', after: 'Ines Accepted' },
      ]),
    );
  });

  it('answers 409 to an email already in the workspace, whatever its case, and 422 at the dotted path of bad input', async () => {
    const taken = await api.request('/api/v1/users/invitations', { method: 'POST', token: admin, json: { email: tenant.users.sales!.email.toUpperCase(), full_name: 'Dup', role: 'SALES' } });
    expect(taken.status).toBe(409);
    expect((await errorOf(taken)).code).toBe('conflict');

    const cases: [unknown, string][] = [
      [{ email: 'not-an-email', full_name: 'X', role: 'SALES' }, 'email'],
      [{ email: uniqueEmail('x'), full_name: '', role: 'SALES' }, 'full_name'],
      [{ email: uniqueEmail('x'), full_name: 'X', role: 'OWNER' }, 'role'],
      [{ email: uniqueEmail('x'), full_name: 'X' }, 'role'],
      [{ email: uniqueEmail('x'), full_name: 'X', role: 'SALES', extra: 1 }, ''],
    ];
    for (const [json, field] of cases) {
      const res = await api.request('/api/v1/users/invitations', { method: 'POST', token: admin, json });
      expect(res.status).toBe(422);
      const fields = Object.keys((await errorOf(res)).details?.fields ?? {});
      if (field) expect(fields[0]).toBe(field);
    }
    expect((await api.request('/api/v1/users/invitations', { method: 'POST', token: await api.tokenFor(tenant.users.sales!), json: { email: uniqueEmail('x'), full_name: 'X', role: 'SALES' } })).status).toBe(403);
  });

  it('refuses passwords D20 refuses, at `password`, without spending the link', async () => {
    const email = uniqueEmail('pavel.novak');
    const { link } = await invite(admin, { email, full_name: 'Pavel', role: 'TECHNICIAN' });
    const refusals: [string, RegExp][] = [
      ['short-pw-11', /at least 12/],
      ['x'.repeat(201), /at most 200/],
      ['qwerty123456', /common/],
      ['1q2w3e4r5t6y', /common/],
      // Not on the list, but what a dictionary attack tries first (a common word and a number).
      ['password123456', /common/],
      ['iloveyou1234', /common/],
      [`my-${email.split('@')[0]!.toUpperCase()}-is-long`, /email/],
    ];
    for (const [password, complaint] of refusals) {
      const res = await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: link, password } });
      expect(res.status).toBe(422);
      expect((await errorOf(res)).details?.fields?.password).toMatch(complaint);
    }
    expect((await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: link, password: strong() } })).status).toBe(200);
  });

  it('answers one 400 for an unknown, used, voided or expired token', async () => {
    const messages: string[] = [];
    const attempt = async (token: string) => {
      const res = await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token, password: strong() } });
      expect(res.status).toBe(400);
      const error = await errorOf(res);
      expect(error.code).toBe('bad_request');
      messages.push(error.message);
    };
    // unknown
    await attempt(randomBytes(32).toString('base64url'));
    // used
    const used = await invite(admin, { email: uniqueEmail('used'), full_name: 'Used', role: 'SALES' });
    expect((await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: used.link, password: strong() } })).status).toBe(200);
    await attempt(used.link);
    // voided by a newer link
    const voided = await invite(admin, { email: uniqueEmail('voided'), full_name: 'Voided', role: 'SALES' });
    const resent = await api.request(`/api/v1/users/${voided.invitation.id}/invitations`, { method: 'POST', token: admin });
    expect(resent.status).toBe(201);
    const newer = tokenOf(await mailTo(voided.invitation.email, [voided.mail.id]), 'accept-invitation');
    expect(newer).not.toBe(voided.link);
    await attempt(voided.link);
    // expired
    const expired = await invite(admin, { email: uniqueEmail('expired'), full_name: 'Expired', role: 'SALES' });
    await owner.query(`update user_tokens set expires_at = now() - interval '1 second' where token_hash = $1`, [hashLinkToken(expired.link)]);
    await attempt(expired.link);

    expect(new Set(messages)).toEqual(new Set([UNUSABLE_TOKEN_MESSAGE]));
    // The newer link of the voided one still works.
    expect((await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: newer, password: strong() } })).status).toBe(200);
  });

  // Defence in depth (tokens are 256-bit): the per-token and per-address limits let a crowd of
  // addresses guess without end, each guess a new token. Failed redemptions are also counted per
  // workspace, whatever the token or address, and a guess past the limit is not even tried.
  it(`limits failed link redemptions per workspace to ${LINK_REDEMPTION_LIMIT.points} in ${LINK_REDEMPTION_LIMIT.windowSeconds / 60} minutes, from any number of addresses`, async () => {
    const guessed = await createTenant(owner, { admin: 'ADMIN' });
    const guessedAdmin = await api.tokenFor(guessed.users.admin!);
    const real = await invite(guessedAdmin, { email: `real-${randomBytes(4).toString('hex')}@${guessed.subdomain}.test`, full_name: 'Real', role: 'SALES' });
    // A guess names the workspace as a real link does (its first 32 characters); 256 bits follow.
    const prefix = real.link.slice(0, 32);
    expect(prefix).toBe(guessed.id.replaceAll('-', ''));
    const addresses = Array.from({ length: 8 }, () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0]! % 250)}`);
    const guess = (i: number, path: string) =>
      api.request(path, { method: 'POST', headers: { 'x-forwarded-for': addresses[i % addresses.length]! }, json: { token: `${prefix}${randomBytes(32).toString('base64url')}`, password: strong() } });
    const paths = ['/api/v1/auth/invitations/accept', '/api/v1/auth/password-resets/confirm'];
    const statuses: number[] = [];
    for (let i = 0; i < LINK_REDEMPTION_LIMIT.points; i++) statuses.push((await guess(i, paths[i % 2]!)).status);
    expect(new Set(statuses)).toEqual(new Set([400]));
    for (const path of paths) {
      const refused = await guess(LINK_REDEMPTION_LIMIT.points, path);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // A guess naming a workspace that does not exist counts in the shared allowance: a plain 400.
    const madeUp = await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: `${randomUUID().replaceAll('-', '')}${randomBytes(32).toString('base64url')}`, password: strong() } });
    expect(madeUp.status).toBe(400);
    expect((await errorOf(madeUp)).message).toBe(UNUSABLE_TOKEN_MESSAGE);
    // Past the limit the workspace's own links wait too (that is the price of the limit)...
    expect((await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: real.link, password: strong() } })).status).toBe(429);
    // ...and another workspace's links are untouched.
    const elsewhere = await invite(otherAdmin, { email: `elsewhere-${randomBytes(4).toString('hex')}@${other.subdomain}.test`, full_name: 'Elsewhere', role: 'SALES' });
    expect((await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: elsewhere.link, password: strong() } })).status).toBe(200);
    // Successful redemptions and refused passwords do not count against a workspace.
    const fresh = await createTenant(owner, { admin: 'ADMIN' });
    const freshAdmin = await api.tokenFor(fresh.users.admin!);
    const first = await invite(freshAdmin, { email: `first-${randomBytes(4).toString('hex')}@${fresh.subdomain}.test`, full_name: 'First', role: 'SALES' });
    const weak = await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: first.link, password: 'password123456' } });
    expect(weak.status).toBe(422);
    expect(weak.headers.get('ratelimit')).toMatch(new RegExp(`^limit=${LINK_REDEMPTION_LIMIT.points}, remaining=${LINK_REDEMPTION_LIMIT.points - 1}, `));
    const accepted = await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: first.link, password: strong() } });
    expect(accepted.status).toBe(200);
    expect(accepted.headers.get('ratelimit')).toMatch(new RegExp(`^limit=${LINK_REDEMPTION_LIMIT.points}, remaining=${LINK_REDEMPTION_LIMIT.points - 1}, `));
  });

  it('lets exactly one of two concurrent accepts of one token through', async () => {
    const { invitation, link } = await invite(admin, { email: uniqueEmail('race'), full_name: 'Race', role: 'SALES' });
    const [a, b] = await Promise.all(
      [strong(), strong()].map((password) => api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: link, password } })),
    );
    expect([a!.status, b!.status].sort()).toEqual([200, 400]);
    const audit = await auditOf(invitation.id);
    expect(audit.filter((e) => e.action === 'user.invitation_accepted')).toHaveLength(1);
  });

  it(`sends at most ${INVITATION_RESENDS_PER_HOUR} new links an hour per user, then 429 with Retry-After`, async () => {
    const { invitation } = await invite(admin, { email: uniqueEmail('resend'), full_name: 'Resend', role: 'SALES' });
    for (let i = 0; i < INVITATION_RESENDS_PER_HOUR; i += 1) {
      expect((await api.request(`/api/v1/users/${invitation.id}/invitations`, { method: 'POST', token: admin })).status).toBe(201);
    }
    const refused = await api.request(`/api/v1/users/${invitation.id}/invitations`, { method: 'POST', token: admin });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const audit = await auditOf(invitation.id);
    expect(audit.filter((e) => e.action === 'user.invitation_resent')).toHaveLength(INVITATION_RESENDS_PER_HOUR);
    // An active user has no invitation to resend.
    expect((await api.request(`/api/v1/users/${tenant.users.sales!.id}/invitations`, { method: 'POST', token: admin })).status).toBe(409);
  });
});

describe('D20: new invitations are limited per workspace', () => {
  it(`invites at most ${INVITATIONS_PER_HOUR} people an hour per workspace, then 429 with Retry-After; another workspace keeps its own allowance`, async () => {
    const busy = await createTenant(owner, { admin: 'ADMIN' });
    const busyAdmin = await api.tokenFor(busy.users.admin!);
    const body = (i: number) => ({ email: `crew-${i}-${randomBytes(3).toString('hex')}@${busy.subdomain}.test`, full_name: `Crew ${i}`, role: 'TECHNICIAN' });
    for (let i = 0; i < INVITATIONS_PER_HOUR; i += 1) {
      expect((await api.request('/api/v1/users/invitations', { method: 'POST', token: busyAdmin, json: body(i) })).status).toBe(201);
    }
    const refusedBody = body(INVITATIONS_PER_HOUR);
    const refused = await api.request('/api/v1/users/invitations', { method: 'POST', token: busyAdmin, json: refusedBody });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await errorOf(refused)).code).toBe('rate_limited');
    // Refused before anything was made: no user, no audit event, no mail.
    const { rows: made } = await owner.query('select id from users where organization_id = $1 and email = $2', [busy.id, refusedBody.email]);
    expect(made).toEqual([]);
    const { rows: invited } = await owner.query<{ n: number }>(`select count(*)::int as n from audit_events where organization_id = $1 and action = 'user.invited'`, [busy.id]);
    expect(invited[0]!.n).toBe(INVITATIONS_PER_HOUR);
    // The allowance is the workspace's: another workspace's ADMIN still invites.
    expect((await api.request('/api/v1/users/invitations', { method: 'POST', token: otherAdmin, json: { email: `limit-${randomBytes(3).toString('hex')}@${other.subdomain}.test`, full_name: 'Other', role: 'SALES' } })).status).toBe(201);
  }, 60_000);
});

describe('D20: password resets', () => {
  it('answers 202 whatever exists, mails only an active account, and the link replaces the password and ends earlier tokens', async () => {
    const { invitation, link } = await invite(admin, { email: uniqueEmail('reset'), full_name: 'Reset', role: 'SALES' });
    const first = strong();
    const accepted = LoginResult.parse(await (await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: link, password: first } })).json());
    const email = invitation.email;

    const bodies = [
      { subdomain: tenant.subdomain, email },
      { subdomain: tenant.subdomain, email: uniqueEmail('nobody') },
      { subdomain: `no-${randomBytes(4).toString('hex')}`, email },
    ];
    for (const json of bodies) {
      const res = await api.request('/api/v1/auth/password-resets', { method: 'POST', json });
      expect(res.status).toBe(202);
      expect(await res.json()).toEqual({ accepted: true });
    }
    const mail = await mailTo(email, [], /reset/i);
    const resetToken = tokenOf(mail, 'reset-password');
    // Nothing was issued for the others.
    const { rows } = await owner.query<{ n: string }>(`select count(*) as n from user_tokens where purpose = 'password_reset' and user_id = $1`, [invitation.id]);
    expect(Number(rows[0]!.n)).toBe(1);

    const weak = await api.request('/api/v1/auth/password-resets/confirm', { method: 'POST', json: { token: resetToken, password: 'password1234' } });
    expect(weak.status).toBe(422);
    expect(Object.keys((await errorOf(weak)).details?.fields ?? {})).toEqual(['password']);

    const second = strong();
    const confirmed = await api.request('/api/v1/auth/password-resets/confirm', { method: 'POST', json: { token: resetToken, password: second } });
    expect(confirmed.status).toBe(200);
    const fresh = LoginResult.parse(await confirmed.json());
    expect((await api.request('/api/v1/auth/me', { token: accepted.access_token })).status).toBe(401);
    expect((await api.request('/api/v1/auth/me', { token: fresh.access_token })).status).toBe(200);
    expect((await login(email, first)).status).toBe(401);
    expect((await login(email, second)).status).toBe(200);
    // Used once.
    const again = await api.request('/api/v1/auth/password-resets/confirm', { method: 'POST', json: { token: resetToken, password: strong() } });
    expect(again.status).toBe(400);
    expect((await errorOf(again)).message).toBe(UNUSABLE_TOKEN_MESSAGE);
    // A reset link is not an invitation link.
    expect((await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: resetToken, password: strong() } })).status).toBe(400);

    expect((await auditOf(invitation.id)).map((a) => a.action)).toEqual(['user.invited', 'user.invitation_accepted', 'user.password_reset_requested', 'user.password_reset']);
  });

  it('mails no link to a deactivated account, and a newer reset voids the older', async () => {
    const { invitation, link } = await invite(admin, { email: uniqueEmail('two-resets'), full_name: 'Two', role: 'SALES' });
    expect((await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: link, password: strong() } })).status).toBe(200);
    const ask = () => api.request('/api/v1/auth/password-resets', { method: 'POST', json: { subdomain: tenant.subdomain, email: invitation.email } });
    expect((await ask()).status).toBe(202);
    const firstMail = await mailTo(invitation.email, [], /reset/i);
    const older = tokenOf(firstMail, 'reset-password');
    expect((await ask()).status).toBe(202);
    const newer = tokenOf(await mailTo(invitation.email, [firstMail.id], /reset/i), 'reset-password');
    const refused = await api.request('/api/v1/auth/password-resets/confirm', { method: 'POST', json: { token: older, password: strong() } });
    expect(refused.status).toBe(400);

    expect((await api.request(`/api/v1/users/${invitation.id}`, { method: 'PATCH', token: admin, json: { status: 'deactivated' } })).status).toBe(200);
    // Deactivation voided the open link too.
    expect((await api.request('/api/v1/auth/password-resets/confirm', { method: 'POST', json: { token: newer, password: strong() } })).status).toBe(400);
    const { rows: before } = await owner.query<{ n: string }>(`select count(*) as n from user_tokens where user_id = $1`, [invitation.id]);
    const mailsBefore = (await catcher.messages()).length;
    expect((await ask()).status).toBe(202);
    // The work is done after the answer, in order: once a later request's mail has arrived, the deactivated one's was handled.
    const witness = await invite(admin, { email: uniqueEmail('witness'), full_name: 'Witness', role: 'SALES' });
    expect((await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: witness.link, password: strong() } })).status).toBe(200);
    expect((await api.request('/api/v1/auth/password-resets', { method: 'POST', json: { subdomain: tenant.subdomain, email: witness.invitation.email } })).status).toBe(202);
    await mailTo(witness.invitation.email, [], /reset/i);
    const { rows: after } = await owner.query<{ n: string }>(`select count(*) as n from user_tokens where user_id = $1`, [invitation.id]);
    expect(after[0]!.n).toBe(before[0]!.n);
    // Only the witness's invitation and reset were mailed.
    expect((await catcher.messages()).slice(mailsBefore).map((m) => m.to[0]!.address)).toEqual([witness.invitation.email, witness.invitation.email]);
  });

  it('answers before any of the work: the 202 arrives while the reset email is still being sent', async () => {
    const { invitation, link } = await invite(admin, { email: uniqueEmail('slow-mail'), full_name: 'Slow', role: 'SALES' });
    expect((await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: link, password: strong() } })).status).toBe(200);
    // A mail server that holds every message until the test lets it go.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const sending: string[] = [];
    const slow = await startApi({ mailer: { send: async (mail) => { sending.push(mail.to); await held; }, close: () => undefined } });
    try {
      const res = await slow.request('/api/v1/auth/password-resets', { method: 'POST', json: { subdomain: tenant.subdomain, email: invitation.email } });
      expect(res.status).toBe(202);
      expect(await res.json()).toEqual({ accepted: true });
      // The link was issued and its email started after the answer; the email is still held.
      await waitUntil('the reset email to be handed to the mail server', () => sending.includes(invitation.email));
      const { rows } = await owner.query<{ n: number }>(`select count(*)::int as n from user_tokens where user_id = $1 and purpose = 'password_reset'`, [invitation.id]);
      expect(rows[0]!.n).toBe(1);
    } finally {
      release();
      await slow.close();
    }
  });

  it('is limited like login, per workspace and email: 429 with Retry-After', async () => {
    const json = { subdomain: tenant.subdomain, email: uniqueEmail('flood') };
    for (let i = 0; i < 10; i += 1) expect((await api.request('/api/v1/auth/password-resets', { method: 'POST', json })).status).toBe(202);
    const refused = await api.request('/api/v1/auth/password-resets', { method: 'POST', json });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another email of the same workspace is counted apart.
    expect((await api.request('/api/v1/auth/password-resets', { method: 'POST', json: { ...json, email: uniqueEmail('calm') } })).status).toBe(202);
  });

  it('validates at dotted paths', async () => {
    const bad = await api.request('/api/v1/auth/password-resets', { method: 'POST', json: { subdomain: 'Not Valid', email: 'x@y.test' } });
    expect(bad.status).toBe(422);
    expect(Object.keys((await errorOf(bad)).details?.fields ?? {})).toEqual(['subdomain']);
    const noToken = await api.request('/api/v1/auth/password-resets/confirm', { method: 'POST', json: { password: strong() } });
    expect(noToken.status).toBe(422);
    expect(Object.keys((await errorOf(noToken)).details?.fields ?? {})).toEqual(['token']);
  });
});

describe("D20: one's own password and name", () => {
  it('changes the password (400 at a wrong current_password, 422 at new_password), and every earlier token stops', async () => {
    const { invitation, link } = await invite(admin, { email: uniqueEmail('olga.own'), full_name: 'Olga', role: 'TECHNICIAN' });
    const first = strong();
    const session = LoginResult.parse(await (await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: link, password: first } })).json());
    const token = session.access_token;

    const wrong = await api.request('/api/v1/auth/me/password', { method: 'POST', token, json: { current_password: 'not-my-password-at-all', new_password: strong() } });
    expect(wrong.status).toBe(400);
    expect(Object.keys((await errorOf(wrong)).details?.fields ?? {})).toEqual(['current_password']);
    const weak = await api.request('/api/v1/auth/me/password', { method: 'POST', token, json: { current_password: first, new_password: `My-${invitation.email.split('@')[0]!.toUpperCase()}-2026` } });
    expect(weak.status).toBe(422);
    expect((await errorOf(weak)).details?.fields?.new_password).toMatch(/email/);

    const second = strong();
    expect((await api.request('/api/v1/auth/me/password', { method: 'POST', token, json: { current_password: first, new_password: second } })).status).toBe(204);
    expect((await api.request('/api/v1/auth/me', { token })).status).toBe(401);
    const relogged = await login(invitation.email, second);
    expect(relogged.status).toBe(200);
    const fresh = LoginResult.parse(await relogged.json()).access_token;
    expect((await api.request('/api/v1/auth/me', { token: fresh })).status).toBe(200);

    const renamed = await api.request('/api/v1/auth/me', { method: 'PATCH', token: fresh, json: { full_name: 'Olga Renamed' } });
    expect(renamed.status).toBe(200);
    expect(Profile.parse(await renamed.json()).full_name).toBe('Olga Renamed');
    const blank = await api.request('/api/v1/auth/me', { method: 'PATCH', token: fresh, json: { full_name: '   ' } });
    expect(blank.status).toBe(422);

    const audit = await auditOf(invitation.id);
    expect(audit.map((a) => a.action)).toEqual(['user.invited', 'user.invitation_accepted', 'user.password_changed', 'user.profile_updated']);
    expect(audit[2]!.changes).toEqual([]);
    expect(audit[3]!.changes).toEqual([{ field: 'full_name', before: 'Olga', after: 'Olga Renamed' }]);
  });
});

describe('D20: roles and deactivation', () => {
  it('keeps the last active ADMIN (409) and stops a deactivated user at once', async () => {
    const solo = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES' });
    const soloAdmin = await api.tokenFor(solo.users.admin!);
    for (const json of [{ role: 'SALES' }, { status: 'deactivated' }]) {
      const res = await api.request(`/api/v1/users/${solo.users.admin!.id}`, { method: 'PATCH', token: soloAdmin, json });
      expect(res.status).toBe(409);
      expect((await errorOf(res)).code).toBe('conflict');
    }
    const promoted = await api.request(`/api/v1/users/${solo.users.sales!.id}`, { method: 'PATCH', token: soloAdmin, json: { role: 'ADMIN', full_name: 'Sam Promoted' } });
    expect(promoted.status).toBe(200);
    expect(UpdatedTeamUser.parse(await promoted.json())).toMatchObject({ role: 'ADMIN', full_name: 'Sam Promoted', status: 'active', affected_jobs: [] });
    const salesToken = await api.tokenFor(solo.users.sales!);
    // Now the first ADMIN may step down; the other is then the last.
    expect((await api.request(`/api/v1/users/${solo.users.admin!.id}`, { method: 'PATCH', token: salesToken, json: { status: 'deactivated' } })).status).toBe(200);
    expect((await api.request('/api/v1/auth/me', { token: soloAdmin })).status).toBe(401);
    expect((await api.request(`/api/v1/users/${solo.users.sales!.id}`, { method: 'PATCH', token: salesToken, json: { role: 'TECHNICIAN' } })).status).toBe(409);
    // Reactivated, the old token stays dead (deactivation raised the token version).
    expect((await api.request(`/api/v1/users/${solo.users.admin!.id}`, { method: 'PATCH', token: salesToken, json: { status: 'active' } })).status).toBe(200);
    expect((await api.request('/api/v1/auth/me', { token: soloAdmin })).status).toBe(401);

    const audit = await auditOf(solo.users.sales!.id);
    expect(audit[0]).toMatchObject({ action: 'user.updated', actor_id: solo.users.admin!.id });
    expect(audit[0]!.changes).toEqual(
      expect.arrayContaining([
        { field: 'role', before: 'SALES', after: 'ADMIN' },
        { field: 'full_name', before: `sales of ${solo.subdomain}`, after: 'Sam Promoted' },
      ]),
    );
    expect(audit[0]!.changes).toHaveLength(2);
    const statusChange = (await auditOf(solo.users.admin!.id))[0]!;
    expect(statusChange.changes).toEqual([{ field: 'status', before: 'active', after: 'deactivated' }]);
    expect(statusChange.request_id).toEqual(expect.any(String));
  });

  it('two ADMINs demoting each other at once: exactly one succeeds, and one active ADMIN is left', async () => {
    // Several workspaces, so that the two requests meet in more than one order.
    for (let round = 0; round < 6; round += 1) {
      const pair = await createTenant(owner, { first: 'ADMIN', second: 'ADMIN' });
      const [first, second] = await Promise.all([api.tokenFor(pair.users.first!), api.tokenFor(pair.users.second!)]);
      const [a, b] = await Promise.all([
        api.request(`/api/v1/users/${pair.users.second!.id}`, { method: 'PATCH', token: first, json: { role: 'SALES' } }),
        api.request(`/api/v1/users/${pair.users.first!.id}`, { method: 'PATCH', token: second, json: { role: 'SALES' } }),
      ]);
      const statuses = [a!.status, b!.status];
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      // The loser was either still an ADMIN when it asked (the last-ADMIN rule: 409) or no longer one (403).
      expect([403, 409]).toContain(statuses.find((s) => s !== 200));
      const { rows } = await owner.query<{ id: string }>(`select id from users where organization_id = $1 and role = 'ADMIN' and active`, [pair.id]);
      expect(rows).toHaveLength(1);
      const { rows: audited } = await owner.query(`select entity_id from audit_events where organization_id = $1 and action = 'user.updated'`, [pair.id]);
      expect(audited).toHaveLength(1);
      expect(audited[0]!.entity_id).not.toBe(rows[0]!.id);
    }
  }, 60_000);

  it('validates the body at dotted paths, and refuses making an invited user active', async () => {
    const bad = await api.request(`/api/v1/users/${tenant.users.sales!.id}`, { method: 'PATCH', token: admin, json: { status: 'invited' } });
    expect(bad.status).toBe(422);
    expect(Object.keys((await errorOf(bad)).details?.fields ?? {})).toEqual(['status']);
    expect((await api.request('/api/v1/users/not-a-uuid', { method: 'PATCH', token: admin, json: {} })).status).toBe(422);
    const { invitation } = await invite(admin, { email: uniqueEmail('pending'), full_name: 'Pending', role: 'SALES' });
    expect((await api.request(`/api/v1/users/${invitation.id}`, { method: 'PATCH', token: admin, json: { status: 'active' } })).status).toBe(409);
  });

  it('takes a deactivated technician off their crews: affected_jobs, the longest-serving member leads, or no one', async () => {
    const crewTenant = await createTenant(owner, { admin: 'ADMIN', lead: 'TECHNICIAN', veteran: 'TECHNICIAN', rookie: 'TECHNICIAN', solo: 'TECHNICIAN' });
    const boss = await api.tokenFor(crewTenant.users.admin!);
    const u = crewTenant.users;
    const made = await api.request('/v1/fsm/crews', { method: 'POST', token: boss, json: { name: 'North', foreman_id: u.lead!.id, member_ids: [u.rookie!.id, u.veteran!.id] } });
    expect(made.status).toBe(201);
    const north = ((await made.json()) as { crew_id: string }).crew_id;
    const alone = await api.request('/v1/fsm/crews', { method: 'POST', token: boss, json: { name: 'Solo', foreman_id: u.solo!.id, member_ids: [] } });
    const soloCrew = ((await alone.json()) as { crew_id: string }).crew_id;
    // The veteran joined first; the rookie last.
    await owner.query(`update crew_members set joined_at = now() - interval '2 years' where crew_id = $1 and user_id = $2`, [north, u.veteran!.id]);
    await owner.query(`update crew_members set joined_at = now() - interval '1 year' where crew_id = $1 and user_id = $2`, [north, u.lead!.id]);
    // A job of North (the crew the lead leads).
    const job = await api.request('/api/v1/work-orders', { method: 'POST', token: boss, json: { assignedTechnicianId: u.lead!.id, scheduledDate: '2026-12-10' } });
    expect(job.status).toBe(201);
    const jobId = ((await job.json()) as { id: string }).id;
    // A renamed crew keeps when its members joined.
    expect((await api.request(`/v1/fsm/crews/${north}`, { method: 'PATCH', token: boss, json: { name: 'North Crew' } })).status).toBe(200);

    const deactivated = await api.request(`/api/v1/users/${u.lead!.id}`, { method: 'PATCH', token: boss, json: { status: 'deactivated' } });
    expect(deactivated.status).toBe(200);
    const body = UpdatedTeamUser.parse(await deactivated.json());
    expect(body.status).toBe('deactivated');
    expect(body.affected_jobs).toEqual([{ job_id: jobId, crew_id: north, status: 'scheduled', scheduled_date: '2026-12-10' }]);

    const crews = (await (await api.request('/v1/fsm/crews', { token: boss })).json()) as { data: { crew_id: string; foreman: { user_id: string } | null; member_ids: string[] }[] };
    const northNow = crews.data.find((c) => c.crew_id === north)!;
    expect(northNow.foreman?.user_id).toBe(u.veteran!.id);
    expect(northNow.member_ids.sort()).toEqual([u.rookie!.id, u.veteran!.id].sort());
    const { rows } = await owner.query<{ assigned_technician_id: string }>('select assigned_technician_id from work_orders where id = $1', [jobId]);
    expect(rows[0]!.assigned_technician_id).toBe(u.veteran!.id);

    const soloGone = await api.request(`/api/v1/users/${u.solo!.id}`, { method: 'PATCH', token: boss, json: { status: 'deactivated' } });
    expect(UpdatedTeamUser.parse(await soloGone.json()).affected_jobs).toEqual([]);
    const after = (await (await api.request('/v1/fsm/crews', { token: boss })).json()) as { data: { crew_id: string; foreman: unknown; member_ids: string[] }[] };
    expect(after.data.find((c) => c.crew_id === soloCrew)).toMatchObject({ foreman: null, member_ids: [] });
  });
});

describe('D20: one tenant never reaches another tenant’s users (both ways)', () => {
  it('hides and refuses across tenants', async () => {
    const pairs: [string, Tenant, Tenant][] = [
      [admin, tenant, other],
      [otherAdmin, other, tenant],
    ];
    for (const [token, own, foreign] of pairs) {
      const listed = TeamUserList.parse(await (await api.request('/api/v1/users?limit=100', { token })).json());
      expect(listed.data.every((u) => u.email.endsWith(`@${own.subdomain}.test`) || !u.email.endsWith(`@${foreign.subdomain}.test`))).toBe(true);
      expect(listed.data.map((u) => u.id)).not.toContain(foreign.users.sales!.id);
      expect((await api.request(`/api/v1/users/${foreign.users.sales!.id}`, { method: 'PATCH', token, json: { role: 'ADMIN' } })).status).toBe(404);
      expect((await api.request(`/api/v1/users/${foreign.users.admin!.id}`, { method: 'PATCH', token, json: { status: 'deactivated' } })).status).toBe(404);
      expect((await api.request(`/api/v1/users/${foreign.users.sales!.id}/invitations`, { method: 'POST', token })).status).toBe(404);
      // The same email may be invited in another tenant: emails are unique per workspace only.
      expect((await api.request('/api/v1/users/invitations', { method: 'POST', token, json: { email: foreign.users.sales!.email, full_name: 'Same Email', role: 'SALES' } })).status).toBe(201);
    }
    const { rows } = await owner.query<{ role: string; active: boolean }>('select role, active from users where id = any($1)', [[tenant.users.sales!.id, other.users.sales!.id, tenant.users.admin!.id, other.users.admin!.id]]);
    expect(rows.every((r) => r.active)).toBe(true);
    expect(rows.filter((r) => r.role === 'ADMIN')).toHaveLength(2);
  });
});

describe('D22: the audit log of the team holds no secret', () => {
  it('never carries a link token, its hash, a password or a password hash', async () => {
    const { rows } = await owner.query<{ text: string }>('select row_to_json(a)::text as text from audit_events a where organization_id = any($1)', [[tenant.id, other.id]]);
    expect(rows.length).toBeGreaterThan(10);
    const { rows: hashes } = await owner.query<{ password_hash: string | null }>('select password_hash from users where organization_id = $1 and password_hash is not null', [tenant.id]);
    const { rows: tokenHashes } = await owner.query<{ token_hash: string }>('select token_hash from user_tokens where organization_id = $1', [tenant.id]);
    const forbidden = [...secrets, ...hashes.map((h) => h.password_hash!), ...tokenHashes.map((t) => t.token_hash)];
    expect(forbidden.length).toBeGreaterThan(20);
    for (const row of rows) for (const secret of forbidden) expect(row.text).not.toContain(secret);
  });
});

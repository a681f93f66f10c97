import { describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { emailLocalPart, passwordComplaint, PASSWORD_COMMON, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../domain/team/passwords';
import { removesLastAdmin, successorForeman, tokenExpiry, userStatus, type UserStatus } from '../../domain/team/team-rules';
import { commonPasswordRank, isCommonPassword } from '../../db/passwords';
import { SANDBOX_PASSWORD } from '../../db/sandbox';
import { hashLinkToken, newLinkToken, teamLink, workspaceNamedBy } from '../../infra/team/links';

/** D20's rules alone, at their edges (the routes that apply them: test/integration/team.test.ts). */
const context = { email: 'dana.lee+crew@shades.test', commonRank: commonPasswordRank };

describe('D20 password rules', () => {
  it('takes 12 to 200 characters, counted as typed (a surrogate pair is one)', () => {
    // Random characters: only the length can be the matter with them.
    const random = (length: number) => randomBytes(length).toString('base64url').slice(0, length);
    expect(passwordComplaint(random(PASSWORD_MIN_LENGTH), context)).toBeUndefined();
    expect(passwordComplaint(random(PASSWORD_MIN_LENGTH - 1), context)).toMatch(/at least 12/);
    expect(passwordComplaint(random(PASSWORD_MAX_LENGTH), context)).toBeUndefined();
    expect(passwordComplaint(random(PASSWORD_MAX_LENGTH + 1), context)).toMatch(/at most 200/);
    // Eleven characters, twelve UTF-16 units: still too short.
    expect(passwordComplaint('🔑' + 'harbourqua', context)).toMatch(/at least 12/);
    expect(passwordComplaint('🔑' + 'harbourquay', context)).toBeUndefined();
  });

  it('refuses a password of the maintained common list, whatever its case, and accepts one that is not', () => {
    expect(isCommonPassword('qwerty123456')).toBe(true);
    expect(isCommonPassword('QWERTY123456')).toBe(true);
    expect(passwordComplaint('1q2w3e4r5t6y', context)).toMatch(/common/);
    expect(isCommonPassword('harbour-quartz-lantern-9')).toBe(false);
  });

  // What a dictionary attack tries first, at any length: its most common words, capitalised, in
  // l33t, doubled or two joined, with a year, a short number or symbols around them; repeated
  // characters; runs of the alphabet, the digits and the keyboard. Most are not on the list
  // itself (it has few long entries), which is why the rule once let them through.
  it.each([
    'password123456', 'iloveyou1234', 'Password2024!!', 'P@ssw0rd2024!', 'Summer2024!!!', 'welcome123456', 'football12345',
    'dragon12345678', 'monkey123456789', 'iloveyouiloveyou', 'passwordpassword', 'trustno1trustno1', 'iloveyoupassword', 'letmein!letmein!',
    '!!Sunshine2025', 'aaaaaaaaaaaa', '121212121212', '123456789012', 'abcdefghijklmn', 'qwertyuiopasdf', 'zyxwvutsrqpo', 'x'.repeat(PASSWORD_MAX_LENGTH),
  ])('refuses %s, which a guesser tries first', (password) => {
    expect(passwordComplaint(password, context)).toBe(PASSWORD_COMMON);
  });

  it.each([SANDBOX_PASSWORD, 'Correct-Horse-7-Battery', 'harbour-quartz-lantern-9', 'copper-meadow-tide-82', 'not-my-password-at-all', 'Monkey!73920581', 'blue-kettle-9-orbit', 'correcthorsebatterystaple'])(
    'accepts %s, which is not among them',
    (password) => {
      expect(passwordComplaint(password, context)).toBeUndefined();
    },
  );

  it("refuses one containing the email's local part, whatever its case", () => {
    expect(emailLocalPart('Dana.Lee+crew@shades.test')).toBe('dana.lee+crew');
    expect(passwordComplaint('my-DANA.LEE+CREW-password', context)).toMatch(/email/);
    // Part of the local part is not the local part.
    expect(passwordComplaint('dana.lee-is-not-it', context)).toBeUndefined();
  });
});

describe('D20 tokens and links', () => {
  it('lives 72 hours for an invitation and 60 minutes for a reset', () => {
    const at = new Date('2026-11-26T10:00:00.000Z');
    expect(tokenExpiry('invitation', at).toISOString()).toBe('2026-11-29T10:00:00.000Z');
    expect(tokenExpiry('password_reset', at).toISOString()).toBe('2026-11-26T11:00:00.000Z');
  });

  it('stores only the SHA-256 of a 256-bit random token after its workspace, and links to it on the public base URL', () => {
    const workspace = randomUUID();
    const a = newLinkToken(workspace);
    const b = newLinkToken(workspace);
    expect(a.token).not.toBe(b.token);
    expect(a.token.slice(0, 32)).toBe(workspace.replaceAll('-', ''));
    expect(Buffer.from(a.token.slice(32), 'base64url')).toHaveLength(32);
    // The workspace whose failed redemptions a redemption counts against; none for another form.
    expect(workspaceNamedBy(a.token)).toBe(workspace);
    expect(workspaceNamedBy(a.token.slice(32))).toBeUndefined();
    expect(workspaceNamedBy(`${a.token}x`)).toBeUndefined();
    expect(a.hash).toBe(hashLinkToken(a.token));
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.hash).not.toContain(a.token);
    expect(teamLink('https://office.shades.test/', 'accept-invitation', a.token)).toBe(`https://office.shades.test/accept-invitation?token=${a.token}`);
  });
});

describe('D20 status, the last ADMIN and the foreman', () => {
  it('reads the stored flags as one status', () => {
    expect(userStatus({ invited: true, active: false })).toBe('invited');
    expect(userStatus({ invited: false, active: true })).toBe('active');
    expect(userStatus({ invited: false, active: false })).toBe('deactivated');
  });

  it('refuses only what leaves no active ADMIN', () => {
    const active: UserStatus = 'active';
    expect(removesLastAdmin({ role: 'ADMIN', status: active }, { role: 'SALES' }, 1)).toBe(true);
    expect(removesLastAdmin({ role: 'ADMIN', status: active }, { status: 'deactivated' }, 1)).toBe(true);
    expect(removesLastAdmin({ role: 'ADMIN', status: active }, { role: 'SALES' }, 2)).toBe(false);
    expect(removesLastAdmin({ role: 'ADMIN', status: active }, { role: 'ADMIN', status: 'active' }, 1)).toBe(false);
    expect(removesLastAdmin({ role: 'ADMIN', status: active }, {}, 1)).toBe(false);
    // Not an active ADMIN: nothing to keep.
    expect(removesLastAdmin({ role: 'SALES', status: active }, { status: 'deactivated' }, 1)).toBe(false);
    expect(removesLastAdmin({ role: 'ADMIN', status: 'deactivated' }, { role: 'SALES' }, 1)).toBe(false);
  });

  it('hands a crew to its longest-serving remaining member (ties by id), or to no one', () => {
    const day = (d: number) => new Date(Date.UTC(2026, 0, d));
    const members = [
      { userId: 'c', joinedAt: day(3) },
      { userId: 'leaving', joinedAt: day(1) },
      { userId: 'b', joinedAt: day(2) },
      { userId: 'a', joinedAt: day(2) },
    ];
    expect(successorForeman(members, 'leaving')).toBe('a');
    expect(successorForeman([{ userId: 'leaving', joinedAt: day(1) }], 'leaving')).toBeNull();
  });
});

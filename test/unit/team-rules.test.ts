import { describe, expect, it } from '@jest/globals';
import { emailLocalPart, passwordComplaint, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../domain/team/passwords';
import { removesLastAdmin, successorForeman, tokenExpiry, userStatus, type UserStatus } from '../../domain/team/team-rules';
import { isCommonPassword } from '../../db/passwords';
import { hashLinkToken, newLinkToken, teamLink } from '../../infra/team/links';

/** D20's rules alone, at their edges (the routes that apply them: test/integration/team.test.ts). */
const context = { email: 'dana.lee+crew@shades.test', isCommon: isCommonPassword };

describe('D20 password rules', () => {
  it('takes 12 to 200 characters, counted as typed (a surrogate pair is one)', () => {
    expect(passwordComplaint('a'.repeat(PASSWORD_MIN_LENGTH - 1) + 'Z', context)).toBeUndefined();
    expect(passwordComplaint('b'.repeat(PASSWORD_MIN_LENGTH - 1), context)).toMatch(/at least 12/);
    expect(passwordComplaint('c'.repeat(PASSWORD_MAX_LENGTH), context)).toBeUndefined();
    expect(passwordComplaint('d'.repeat(PASSWORD_MAX_LENGTH + 1), context)).toMatch(/at most 200/);
    // Eleven characters, twelve UTF-16 units: still too short.
    expect(passwordComplaint('🔑' + 'e'.repeat(10), context)).toMatch(/at least 12/);
    expect(passwordComplaint('🔑' + 'e'.repeat(11), context)).toBeUndefined();
  });

  it('refuses a password of the maintained common list, whatever its case, and accepts one that is not', () => {
    expect(isCommonPassword('qwerty123456')).toBe(true);
    expect(isCommonPassword('QWERTY123456')).toBe(true);
    expect(passwordComplaint('1q2w3e4r5t6y', context)).toMatch(/common/);
    expect(isCommonPassword('harbour-quartz-lantern-9')).toBe(false);
  });

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

  it('stores only the SHA-256 of a 256-bit random token, and links to it on the public base URL', () => {
    const a = newLinkToken();
    const b = newLinkToken();
    expect(a.token).not.toBe(b.token);
    expect(Buffer.from(a.token, 'base64url')).toHaveLength(32);
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

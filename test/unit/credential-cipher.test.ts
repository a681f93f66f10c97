import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { CredentialCipher, CredentialDecryptionError } from '../../db/security/credential-cipher';
import { loadSettings } from '../../infra/runtime/settings';

/** Provider credentials at rest (D8): AES-256-GCM under CREDENTIAL_ENCRYPTION_KEY with a key id. */
const key = () => randomBytes(32).toString('base64');
const CONTEXT = 'integration_connections/org-1/ACCOUNTING/refresh_token';

describe('CredentialCipher', () => {
  it('round-trips, with a fresh IV each time, and the plaintext nowhere in the ciphertext', () => {
    const cipher = new CredentialCipher(key());
    const token = 'RT1-123-H0-1790000000abcdefghijklmnopqrst';
    const a = cipher.encrypt(token, CONTEXT);
    const b = cipher.encrypt(token, CONTEXT);
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(a.ciphertext).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    for (const sealed of [a, b]) {
      expect(sealed.ciphertext).not.toContain(token);
      expect(sealed.ciphertext).not.toContain(Buffer.from(token).toString('base64url'));
      expect(cipher.decrypt(sealed, CONTEXT)).toBe(token);
    }
    expect(a.keyId).toMatch(/^[0-9a-f]{16}$/);
    expect(a.keyId).toBe(cipher.keyId);
  });

  it('refuses an altered ciphertext, another context (row or field), and another key', () => {
    const secret = key();
    const cipher = new CredentialCipher(secret);
    const sealed = cipher.encrypt('access-token-value', CONTEXT);
    const [format, iv, body, tag] = sealed.ciphertext.split('.') as [string, string, string, string];
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    for (const altered of [`${format}.${flip(iv)}.${body}.${tag}`, `${format}.${iv}.${flip(body)}.${tag}`, `${format}.${iv}.${body}.${flip(tag)}`, `v2.${iv}.${body}.${tag}`, 'garbage']) {
      expect(() => cipher.decrypt({ ...sealed, ciphertext: altered }, CONTEXT)).toThrow(CredentialDecryptionError);
    }
    expect(() => cipher.decrypt(sealed, 'integration_connections/org-2/ACCOUNTING/refresh_token')).toThrow(CredentialDecryptionError);
    expect(() => cipher.decrypt(sealed, 'integration_connections/org-1/ACCOUNTING/access_token')).toThrow(CredentialDecryptionError);
    const other = new CredentialCipher(key());
    expect(() => other.decrypt(sealed, CONTEXT)).toThrow(/no key with id/);
    // The error says nothing of the value.
    try {
      cipher.decrypt({ ...sealed, ciphertext: `${format}.${iv}.${flip(body)}.${tag}` }, CONTEXT);
    } catch (error) {
      expect((error as Error).message).not.toContain(body.slice(1, 10));
    }
  });

  it('rotation: the previous key still decrypts what it sealed, new values are sealed under the current key', () => {
    const oldSecret = key();
    const before = new CredentialCipher(oldSecret);
    const sealed = before.encrypt('refresh-token', CONTEXT);
    const rotated = new CredentialCipher(key(), oldSecret);
    expect(rotated.keyId).not.toBe(before.keyId);
    expect(rotated.decrypt(sealed, CONTEXT)).toBe('refresh-token');
    expect(rotated.isStale(sealed)).toBe(true);
    const resealed = rotated.encrypt('refresh-token', CONTEXT);
    expect(resealed.keyId).toBe(rotated.keyId);
    expect(rotated.isStale(resealed)).toBe(false);
    expect(() => before.decrypt(resealed, CONTEXT)).toThrow(CredentialDecryptionError);
  });

  it('derives the same key id from the same secret (ids are stable across processes) and needs 32+ characters in settings', () => {
    const secret = key();
    expect(new CredentialCipher(secret).keyId).toBe(new CredentialCipher(secret).keyId);
    expect(CredentialCipher.fromSettings({})).toBeUndefined();
    const base = { DATABASE_URL: 'postgres://x@127.0.0.1/x', AUTH_TOKEN_SECRET: 'a'.repeat(32) };
    expect(() => loadSettings({ ...base, CREDENTIAL_ENCRYPTION_KEY: 'short' })).toThrow(/CREDENTIAL_ENCRYPTION_KEY: must be at least 32 characters/);
    expect(() => loadSettings({ ...base, CREDENTIAL_ENCRYPTION_KEY: 'short' })).not.toThrow(/short/);
    expect(CredentialCipher.fromSettings(loadSettings({ ...base, CREDENTIAL_ENCRYPTION_KEY: secret }))?.keyId).toBe(new CredentialCipher(secret).keyId);
  });
});

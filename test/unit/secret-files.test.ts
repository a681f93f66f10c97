// D8: every secret setting may come from a file (`<NAME>_FILE`, as Docker secrets mount them),
// read once by the settings loader; errors name the setting and the path, never a value.
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databasePassword, loadSettings, SETTING_NAMES, SettingsError } from '../../infra/runtime/settings';
import { resolveSecretFiles, SECRET_SETTINGS } from '../../infra/runtime/secret-files';

const dir = mkdtempSync(join(tmpdir(), 'shade-secret-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let count = 0;
function secretFile(content: string): string {
  const path = join(dir, `secret-${++count}`);
  writeFileSync(path, content);
  return path;
}

const authSecret = 'file-held-auth-token-secret-0123456789';
const base = { DATABASE_URL: 'postgres://x@127.0.0.1/x', AUTH_TOKEN_SECRET: 'a'.repeat(32) };

/** The message of the SettingsError that loading `env` throws. */
function refusal(env: NodeJS.ProcessEnv): string {
  try {
    loadSettings(env);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return (error as Error).message;
  }
  throw new Error('the settings were accepted');
}

describe('secret settings from files', () => {
  it('covers every setting that holds a secret, and only settings the loader knows', () => {
    for (const name of SECRET_SETTINGS) expect({ name, known: SETTING_NAMES.includes(name) }).toEqual({ name, known: true });
    const secretLooking = SETTING_NAMES.filter((name) => /SECRET|PASSWORD|ENCRYPTION_KEY/.test(name));
    expect(secretLooking.filter((name) => !(SECRET_SETTINGS as readonly string[]).includes(name))).toEqual([]);
  });

  it('reads X_FILE in place of X, dropping one trailing newline (LF or CRLF) and nothing else', () => {
    const settings = loadSettings({ ...base, AUTH_TOKEN_SECRET: '', AUTH_TOKEN_SECRET_FILE: secretFile(`${authSecret}\n`) });
    expect(settings.AUTH_TOKEN_SECRET).toBe(authSecret);
    const key = ` ${'k'.repeat(40)} `;
    expect(loadSettings({ ...base, CREDENTIAL_ENCRYPTION_KEY_FILE: secretFile(`${key}\r\n`) }).CREDENTIAL_ENCRYPTION_KEY).toBe(key);
    expect(loadSettings({ ...base, PAYMENTS_SECRET_KEY_FILE: secretFile('sk_test_from_file') }).PAYMENTS_SECRET_KEY).toBe('sk_test_from_file');
  });

  it.each(SECRET_SETTINGS.map((name) => [name]))('%s_FILE is read', (name) => {
    const values: Record<string, string> = {
      DATABASE_URL: 'postgres://owner:from-file@127.0.0.1:5432/shade',
      SMTP_URL: 'smtps://mailer:from-file@127.0.0.1:465',
    };
    const value = values[name] ?? `${name.toLowerCase()}-from-a-file-0123456789abcdef`;
    const env: NodeJS.ProcessEnv = { ...base, [name]: undefined, [`${name}_FILE`]: secretFile(`${value}\n`) };
    expect(loadSettings(env)[name]).toBe(value);
  });

  it('a blank X_FILE counts as unset, like every blank setting', () => {
    expect(loadSettings({ ...base, AUTH_TOKEN_SECRET_FILE: '' }).AUTH_TOKEN_SECRET).toBe(base.AUTH_TOKEN_SECRET);
  });

  it('refuses X and X_FILE together, naming both and neither value', () => {
    const message = refusal({ ...base, AUTH_TOKEN_SECRET: authSecret, AUTH_TOKEN_SECRET_FILE: secretFile(authSecret) });
    expect(message).toMatch(/AUTH_TOKEN_SECRET and AUTH_TOKEN_SECRET_FILE are both set/);
    expect(message).not.toContain(authSecret);
  });

  it('refuses a missing file, naming the setting and the path', () => {
    const path = join(dir, 'no-such-secret');
    expect(refusal({ ...base, CREDENTIAL_ENCRYPTION_KEY_FILE: path })).toBe(`invalid settings: CREDENTIAL_ENCRYPTION_KEY_FILE: cannot read ${path} (ENOENT)`);
  });

  it('refuses a directory given as the file', () => {
    expect(refusal({ ...base, PAYMENTS_WEBHOOK_SECRET_FILE: dir })).toBe(`invalid settings: PAYMENTS_WEBHOOK_SECRET_FILE: cannot read ${dir} (EISDIR)`);
  });

  it('reports a read failure by its code only: the reader\'s message is never passed on', () => {
    const leaky = Object.assign(new Error(`permission denied, first bytes: ${authSecret}`), { code: 'EACCES' });
    const result = resolveSecretFiles({ AUTH_TOKEN_SECRET_FILE: '/run/secrets/auth_token_secret' }, () => {
      throw leaky;
    });
    expect(result.problems).toEqual(['AUTH_TOKEN_SECRET_FILE: cannot read /run/secrets/auth_token_secret (EACCES)']);
    expect(result.env.AUTH_TOKEN_SECRET).toBeUndefined();
  });

  it('a value from a file that fails validation is named with its file, never echoed', () => {
    const short = 'short-secret';
    const message = refusal({ ...base, AUTH_TOKEN_SECRET: '', AUTH_TOKEN_SECRET_FILE: secretFile(`${short}\n`) });
    expect(message).toBe('invalid settings: AUTH_TOKEN_SECRET (read from AUTH_TOKEN_SECRET_FILE): must be at least 32 characters');
    expect(message).not.toContain(short);
  });

  it('production refuses the local stand-in database password from a file as from the environment', () => {
    const production = { ...base, NODE_ENV: 'production' };
    const real = loadSettings({ ...production, DATABASE_APP_PASSWORD_FILE: secretFile('app-password-from-file\n') });
    expect(databasePassword(real, 'api')).toBe('app-password-from-file');
    const standIn = loadSettings({ ...production, DATABASE_APP_PASSWORD_FILE: secretFile('shade_app_local_only\n') });
    expect(() => databasePassword(standIn, 'api')).toThrow('invalid settings: DATABASE_APP_PASSWORD must be set in production');
  });
});

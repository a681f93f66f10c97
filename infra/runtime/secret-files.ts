import { readFileSync } from 'node:fs';

/**
 * D8: the settings that hold secrets. Each may instead be given as `<NAME>_FILE=/path` (how
 * Docker secrets mount them, under /run/secrets/), read here once for every process, so no
 * consumer knows where a value came from. DATABASE_URL is one of them: in production it carries
 * the owner's password (the migrations' connection).
 */
export const SECRET_SETTINGS = [
  'DATABASE_URL',
  'DATABASE_APP_PASSWORD',
  'DATABASE_WORKER_PASSWORD',
  'AUTH_TOKEN_SECRET',
  'PAYMENTS_SECRET_KEY',
  'PAYMENTS_WEBHOOK_SECRET',
  'ACCOUNTING_CLIENT_SECRET',
  'CRM_CLIENT_SECRET',
  'CREDENTIAL_ENCRYPTION_KEY',
  'CREDENTIAL_ENCRYPTION_KEY_PREVIOUS',
  'SMTP_URL',
] as const;

export type SecretSetting = (typeof SECRET_SETTINGS)[number];

export const fileSettingOf = (name: SecretSetting) => `${name}_FILE`;

const isSet = (value: string | undefined): value is string => value !== undefined && value !== '';

export interface ResolvedSecrets {
  env: NodeJS.ProcessEnv;
  /** The settings whose value came from a file, so that an error can say so. */
  fromFiles: Set<string>;
  /** What is wrong, by name and path only: never a value or a file's content. */
  problems: string[];
}

/**
 * The environment with each `<NAME>_FILE` replaced by the content of its file (one trailing
 * newline dropped, as `echo` and editors leave one). Blank counts as unset, as for every
 * setting: `X=` beside `X_FILE=...` is not a conflict (docker-compose passes both).
 */
export function resolveSecretFiles(env: NodeJS.ProcessEnv, read: (path: string) => string = (path) => readFileSync(path, 'utf8')): ResolvedSecrets {
  const resolved: NodeJS.ProcessEnv = { ...env };
  const fromFiles = new Set<string>();
  const problems: string[] = [];
  for (const name of SECRET_SETTINGS) {
    const fileSetting = fileSettingOf(name);
    const path = env[fileSetting];
    if (!isSet(path)) continue;
    if (isSet(env[name])) {
      problems.push(`${name} and ${fileSetting} are both set; give only one`);
      continue;
    }
    try {
      resolved[name] = read(path).replace(/\r?\n$/, '');
      fromFiles.add(name);
    } catch (error) {
      // The error's code only (ENOENT, EACCES, EISDIR): its message could quote more than the path.
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      problems.push(`${fileSetting}: cannot read ${path} (${code})`);
    }
  }
  return { env: resolved, fromFiles, problems };
}

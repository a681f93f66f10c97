import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { dataDir } from './paths';

/**
 * Development secrets the local stack needs but a newcomer should not have to invent: made once
 * per clone, kept in the git-ignored .data folder, never printed. Values already in the
 * environment, or in a file it names, win.
 */
export function developmentSecrets(): Record<string, string> {
  const file = join(dataDir, 'dev-secrets.json');
  let stored: Record<string, string> = {};
  if (existsSync(file)) stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  const wanted = {
    AUTH_TOKEN_SECRET: () => randomBytes(32).toString('base64url'),
    DATABASE_APP_PASSWORD: () => randomBytes(18).toString('base64url'),
    DATABASE_WORKER_PASSWORD: () => randomBytes(18).toString('base64url'),
    // Encrypts webhook signing secrets and provider tokens at rest in development.
    CREDENTIAL_ENCRYPTION_KEY: () => randomBytes(32).toString('base64'),
  };
  let changed = false;
  for (const [name, make] of Object.entries(wanted)) {
    if (!stored[name]) {
      stored[name] = make();
      changed = true;
    }
  }
  if (changed) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(stored, null, 2) + '\n', { mode: 0o600 });
  }
  const result: Record<string, string> = {};
  for (const name of Object.keys(wanted)) {
    // A value given as a file (<NAME>_FILE, infra/runtime/secret-files.ts) wins too: the loader
    // refuses a setting given both ways.
    if (process.env[`${name}_FILE`]) continue;
    result[name] = process.env[name] || stored[name]!;
  }
  return result;
}

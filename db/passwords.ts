import { hash, verify } from '@node-rs/argon2';

/**
 * Argon2id (memory-hard) from a maintained native binding. Parameters are the library's
 * defaults, which follow OWASP's minimum (19 MiB, 2 passes); they are recorded in each hash,
 * so raising them later needs no migration.
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

export function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  return verify(passwordHash, password).catch(() => false);
}

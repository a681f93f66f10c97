import { hash, verify } from '@node-rs/argon2';
import { dictionary } from '@zxcvbn-ts/language-common';

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

/**
 * D20's list of common passwords: zxcvbn-ts's `passwords-common` dictionary (about 49,000
 * passwords seen in breaches, ranked by frequency), from a maintained package rather than a list
 * typed here. Compared lower-cased, as zxcvbn does.
 */
const COMMON_PASSWORDS: ReadonlySet<string> = new Set(dictionary['passwords-common'].map((password) => password.toLowerCase()));

export function isCommonPassword(password: string): boolean {
  return COMMON_PASSWORDS.has(password.toLowerCase());
}

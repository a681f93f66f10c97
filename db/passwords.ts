import { hash, verify } from '@node-rs/argon2';
import { createRequire } from 'node:module';

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
 * typed here. Compared lower-cased, as zxcvbn does. Loaded when a password is first chosen, not at
 * start: the package's dictionaries and the set weigh about 4.5 MB of heap, which a replica that
 * only serves quotes and jobs never needs.
 */
let commonPasswords: ReadonlySet<string> | undefined;

export function isCommonPassword(password: string): boolean {
  if (!commonPasswords) {
    const { dictionary } = createRequire(import.meta.url)('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common');
    commonPasswords = new Set(dictionary['passwords-common'].map((common) => common.toLowerCase()));
  }
  return commonPasswords.has(password.toLowerCase());
}

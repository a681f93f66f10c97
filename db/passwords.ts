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
 * typed here. Compared lower-cased, as zxcvbn does; domain/team/passwords.ts also tries the
 * manglings a guesser applies to its most common words. Loaded when a password is first chosen,
 * not at start: the package's dictionaries and the map weigh a few MB of heap, which a replica
 * that only serves quotes and jobs never needs.
 */
let commonPasswords: ReadonlyMap<string, number> | undefined;

/** Where a lower-case string stands on the list (0: the most common), or undefined when it is not on it. */
export function commonPasswordRank(lowerCase: string): number | undefined {
  if (!commonPasswords) {
    const { dictionary } = createRequire(import.meta.url)('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common');
    const ranks = new Map<string, number>();
    dictionary['passwords-common'].forEach((common, rank) => {
      const key = common.toLowerCase();
      if (!ranks.has(key)) ranks.set(key, rank);
    });
    commonPasswords = ranks;
  }
  return commonPasswords.get(lowerCase);
}

export function isCommonPassword(password: string): boolean {
  return commonPasswordRank(password.toLowerCase()) !== undefined;
}

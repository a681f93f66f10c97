import { randomBytes } from 'node:crypto';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random [A-Za-z0-9] string; providers' opaque ids and tokens use this alphabet. */
export function randomAlnum(length: number, alphabet = ALNUM): string {
  // Rejection sampling keeps the distribution uniform over the alphabet.
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b >= limit) continue;
      out += alphabet[b % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

export function randomDigits(length: number): string {
  return randomAlnum(length, '0123456789');
}

// Salesforce record ids: a 3-character key prefix (00D org, 005 user, 006 opportunity, 001
// account), 12 more case-sensitive characters, and the 3-character case-safe suffix that turns
// the 15-character id into the 18-character form the REST API returns.
import { randomAlnum } from '../core/random';

const SUFFIX_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ012345';

export function caseSafeSuffix(id15: string): string {
  let out = '';
  for (let chunk = 0; chunk < 3; chunk++) {
    let bits = 0;
    for (let i = 0; i < 5; i++) {
      const ch = id15[chunk * 5 + i] as string;
      if (ch >= 'A' && ch <= 'Z') bits |= 1 << i;
    }
    out += SUFFIX_ALPHABET[bits];
  }
  return out;
}

export function newSalesforceId(keyPrefix: string): string {
  const id15 = `${keyPrefix}5g0000${randomAlnum(6)}`;
  return id15 + caseSafeSuffix(id15);
}

/** Accepts a 15- or 18-character id and returns the 18-character form, or undefined if malformed. */
export function to18(id: string): string | undefined {
  if (/^[a-zA-Z0-9]{18}$/.test(id)) return id;
  if (/^[a-zA-Z0-9]{15}$/.test(id)) return id + caseSafeSuffix(id);
  return undefined;
}

// Signing of outbound event deliveries (spec 6.3 rule 2, decision D6).
//
// `X-Service-Signature: t=<unix_seconds>,v1=<hex>` where v1 is lowercase-hex HMAC-SHA256 over
// `<t>.<raw body>` keyed with the endpoint secret's UTF-8 bytes. That is byte for byte Stripe's
// scheme, so receivers may verify with `stripe.webhooks.constructEvent(body, header, secret)`
// as well as with verifySignature below. During a D6 secret rotation the header carries one v1
// per live secret (newest first); a verifier accepts the delivery when any v1 matches its secret,
// which is how Stripe's parser treats repeated v1 entries as well.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Spec 6.3 rule 2 and section 8: receivers reject timestamps more than 300 seconds away. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const SECRET_PREFIX = 'whsec_';
const SIGNATURE_HEX = /^[0-9a-f]{64}$/;

function hmacHex(secret: string, timestamp: number, body: string | Uint8Array): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestamp}.`, 'utf8');
  if (typeof body === 'string') hmac.update(body, 'utf8');
  else hmac.update(body);
  return hmac.digest('hex');
}

export interface SignInput {
  /** One secret, or two during a rotation's 24-hour overlap (D6), newest first. */
  secrets: readonly string[];
  /** The exact bytes that will be sent; signing a re-serialised object would not verify. */
  body: string | Uint8Array;
  /** Unix seconds at the time of this attempt (each retry is signed afresh). */
  timestamp: number;
}

/** The `X-Service-Signature` value: `t=<t>,v1=<hex>[,v1=<hex>]`. */
export function signPayload({ secrets, body, timestamp }: SignInput): string {
  if (secrets.length < 1 || secrets.length > 2) {
    throw new RangeError(`a delivery is signed with one or two secrets, got ${secrets.length}`);
  }
  if (secrets.some((s) => s.length === 0)) throw new RangeError('a signing secret must not be empty');
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError('the signature timestamp must be whole unix seconds');
  }
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${hmacHex(secret, timestamp, body)}`)].join(',');
}

export type VerifyResult =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'malformed_header' | 'no_signature' | 'timestamp_outside_tolerance' | 'signature_mismatch' };

interface ParsedHeader {
  timestamp: number;
  signatures: string[];
}

function parseHeader(header: string): ParsedHeader | null {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const item of header.split(',')) {
    const eq = item.indexOf('=');
    if (eq < 0) continue;
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (key === 't') {
      // Two timestamps would make it ambiguous which one was signed.
      if (timestamp !== null || !/^\d{1,15}$/.test(value)) return null;
      timestamp = Number(value);
    } else if (key === 'v1') {
      signatures.push(value);
    }
    // Unknown schemes are ignored so that a future v2 can be added beside v1.
  }
  return timestamp === null ? null : { timestamp, signatures };
}

/**
 * What the product's docs tell receivers to do (spec 6.3 rule 2): recompute the HMAC over
 * `<t>.<raw body>` with the endpoint secret, compare in constant time against every v1 entry,
 * and refuse timestamps more than `toleranceSeconds` away from `now` (unix seconds). Unlike
 * Stripe's verifier this also refuses timestamps that far in the future: a clock that far off
 * is a configuration error worth surfacing, and it bounds how long a captured request stays
 * replayable. Pass the raw body exactly as received.
 */
export function verifySignature(
  header: string,
  body: string | Uint8Array,
  secret: string,
  toleranceSeconds: number = DEFAULT_TOLERANCE_SECONDS,
  now: number = Math.floor(Date.now() / 1000),
): VerifyResult {
  const parsed = parseHeader(header);
  if (!parsed) return { ok: false, reason: 'malformed_header' };
  const candidates = parsed.signatures.filter((s) => SIGNATURE_HEX.test(s));
  if (candidates.length === 0) return { ok: false, reason: 'no_signature' };

  const expected = Buffer.from(hmacHex(secret, parsed.timestamp, body), 'hex');
  let matched = false;
  // Every candidate is compared so the time taken does not depend on which one matches.
  for (const candidate of candidates) {
    if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) matched = true;
  }
  if (!matched) return { ok: false, reason: 'signature_mismatch' };
  if (Math.abs(now - parsed.timestamp) > toleranceSeconds) return { ok: false, reason: 'timestamp_outside_tolerance' };
  return { ok: true, timestamp: parsed.timestamp };
}

/**
 * A new endpoint secret (D6: begins `whsec_`, shown once). 32 random bytes in base64url: no
 * padding or characters that need quoting in a .env file, and the whole string (prefix
 * included) is the HMAC key, exactly as Stripe's verifier uses it.
 */
export function generateEndpointSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

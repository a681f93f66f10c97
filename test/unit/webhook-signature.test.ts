// Spec 6.3 rule 2 and D6 (rotation): the X-Service-Signature header, checked against an
// independent HMAC computation and against Stripe's verifier, which uses the same scheme.
import { describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { generateEndpointSecret, signPayload, verifySignature } from '../../infra/webhooks/signature';

const SECRET = 'whsec_test_current_0123456789abcdef';
const OLD_SECRET = 'whsec_test_previous_fedcba9876543210';
const BODY = JSON.stringify({
  event: 'quote.approved',
  id: '5f0c1a9e-3c1b-4a5e-9a3e-0c2f4b7d8e11',
  organization_id: '0b8e2a4c-6d1f-4e3a-8b5c-7a9d0e1f2a3b',
  created_at: '2026-07-01T12:00:00.000Z',
  data: { quote_id: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f', customer_name: 'Zoë Façade', total_amount_cents: 123456 },
});
const T = 1_782_907_200;

const hmac = (secret: string, payload: string) => createHmac('sha256', secret).update(payload, 'utf8').digest('hex');

describe('signPayload (spec 6.3 rule 2)', () => {
  it('is t=<unix>,v1=<lowercase hex HMAC-SHA256 over "<t>.<raw body>">', () => {
    const header = signPayload({ secrets: [SECRET], body: BODY, timestamp: T });
    expect(header).toBe(`t=${T},v1=${hmac(SECRET, `${T}.${BODY}`)}`);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it('signs the same bytes whether the body is given as a string or as its UTF-8 bytes', () => {
    expect(signPayload({ secrets: [SECRET], body: Buffer.from(BODY, 'utf8'), timestamp: T })).toBe(signPayload({ secrets: [SECRET], body: BODY, timestamp: T }));
  });

  it('during a rotation (D6, 24-hour overlap) carries one v1 per secret, newest first', () => {
    const header = signPayload({ secrets: [SECRET, OLD_SECRET], body: BODY, timestamp: T });
    expect(header).toBe(`t=${T},v1=${hmac(SECRET, `${T}.${BODY}`)},v1=${hmac(OLD_SECRET, `${T}.${BODY}`)}`);
  });

  it('refuses zero or more than two secrets, an empty secret and a non-integer timestamp', () => {
    expect(() => signPayload({ secrets: [], body: BODY, timestamp: T })).toThrow(RangeError);
    expect(() => signPayload({ secrets: ['a', 'b', 'c'], body: BODY, timestamp: T })).toThrow(RangeError);
    expect(() => signPayload({ secrets: [''], body: BODY, timestamp: T })).toThrow(RangeError);
    expect(() => signPayload({ secrets: [SECRET], body: BODY, timestamp: 1.5 })).toThrow(RangeError);
    expect(() => signPayload({ secrets: [SECRET], body: BODY, timestamp: Date.now() / 1000 })).toThrow(RangeError);
  });
});

describe('verifySignature (what receivers are told to do)', () => {
  const header = signPayload({ secrets: [SECRET], body: BODY, timestamp: T });

  it('accepts the header and raw body with the endpoint secret, as string or bytes', () => {
    expect(verifySignature(header, BODY, SECRET, 300, T)).toEqual({ ok: true, timestamp: T });
    expect(verifySignature(header, Buffer.from(BODY), SECRET, 300, T + 300)).toEqual({ ok: true, timestamp: T });
  });

  it('rejects a body changed by one byte, another secret, and a re-serialised body', () => {
    const changed = BODY.replace('123456', '123457');
    expect(verifySignature(header, changed, SECRET, 300, T)).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(verifySignature(header, BODY, OLD_SECRET, 300, T)).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(verifySignature(header, JSON.stringify(JSON.parse(BODY), null, 2), SECRET, 300, T)).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('rejects a timestamp more than 300 seconds old (spec 6.3 rule 2) or ahead', () => {
    expect(verifySignature(header, BODY, SECRET, 300, T + 301)).toEqual({ ok: false, reason: 'timestamp_outside_tolerance' });
    expect(verifySignature(header, BODY, SECRET, 300, T - 301)).toEqual({ ok: false, reason: 'timestamp_outside_tolerance' });
    expect(verifySignature(header, BODY, SECRET, 600, T + 500)).toEqual({ ok: true, timestamp: T });
  });

  it('rejects a forged timestamp (the timestamp is signed)', () => {
    const forged = header.replace(`t=${T}`, `t=${T + 1000}`);
    expect(verifySignature(forged, BODY, SECRET, 300, T + 1000)).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('accepts either signature of a rotation header with its own secret', () => {
    const both = signPayload({ secrets: [SECRET, OLD_SECRET], body: BODY, timestamp: T });
    expect(verifySignature(both, BODY, SECRET, 300, T).ok).toBe(true);
    expect(verifySignature(both, BODY, OLD_SECRET, 300, T).ok).toBe(true);
    expect(verifySignature(both, BODY, 'whsec_unrelated', 300, T)).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it.each([
    ['', 'malformed_header'],
    ['v1=abc', 'malformed_header'],
    [`t=${T},t=${T},v1=${'0'.repeat(64)}`, 'malformed_header'],
    [`t=abc,v1=${'0'.repeat(64)}`, 'malformed_header'],
    [`t=${T}`, 'no_signature'],
    [`t=${T},v0=${'0'.repeat(64)}`, 'no_signature'],
    [`t=${T},v1=${'A'.repeat(64)}`, 'no_signature'],
    [`t=${T},v1=${'0'.repeat(63)}`, 'no_signature'],
    [`t=${T},v1=${'0'.repeat(64)}`, 'signature_mismatch'],
  ] as const)('%j -> %s', (value, reason) => {
    expect(verifySignature(value, BODY, SECRET, 300, T)).toEqual({ ok: false, reason });
  });

  it('tolerates spaces after commas and ignores unknown schemes', () => {
    const spaced = `t=${T}, v0=deadbeef, v1=${hmac(SECRET, `${T}.${BODY}`)}`;
    expect(verifySignature(spaced, BODY, SECRET, 300, T).ok).toBe(true);
  });
});

describe('the stripe package verifies our header (same scheme, independent implementation)', () => {
  it('accepts our header with the endpoint secret and rejects a one-byte change', () => {
    const now = Math.floor(Date.now() / 1000);
    const header = signPayload({ secrets: [SECRET], body: BODY, timestamp: now });
    const event = Stripe.webhooks.constructEvent(BODY, header, SECRET) as unknown as { id: string };
    expect(event.id).toBe(JSON.parse(BODY).id);
    const tampered = BODY.replace('123456', '123457');
    expect(Buffer.compare(Buffer.from(tampered), Buffer.from(BODY))).not.toBe(0);
    expect(tampered.length).toBe(BODY.length);
    expect(() => Stripe.webhooks.constructEvent(tampered, header, SECRET)).toThrow(/No signatures found matching/);
  });

  it('accepts a rotation header with either secret', () => {
    const now = Math.floor(Date.now() / 1000);
    const header = signPayload({ secrets: [SECRET, OLD_SECRET], body: BODY, timestamp: now });
    expect(() => Stripe.webhooks.constructEvent(BODY, header, SECRET)).not.toThrow();
    expect(() => Stripe.webhooks.constructEvent(BODY, header, OLD_SECRET)).not.toThrow();
    expect(() => Stripe.webhooks.constructEvent(BODY, header, 'whsec_unrelated')).toThrow(/No signatures found matching/);
  });
});

describe('generateEndpointSecret (D6: begins whsec_)', () => {
  it('is whsec_ followed by 32 random bytes in base64url, different every time', () => {
    const a = generateEndpointSecret();
    const b = generateEndpointSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice('whsec_'.length), 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
  });

  it('signs and verifies like any other secret, with the prefix as part of the key', () => {
    const secret = generateEndpointSecret();
    const now = Math.floor(Date.now() / 1000);
    const header = signPayload({ secrets: [secret], body: BODY, timestamp: now });
    expect(verifySignature(header, BODY, secret).ok).toBe(true);
    expect(verifySignature(header, BODY, secret.slice('whsec_'.length)).ok).toBe(false);
    expect(() => Stripe.webhooks.constructEvent(BODY, header, secret)).not.toThrow();
  });
});

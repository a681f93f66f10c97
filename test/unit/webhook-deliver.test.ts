// One outbound delivery attempt against real HTTP receivers on 127.0.0.1 (spec 6.3, D6).
//
// Only loopback is ever connected to. Tests that need a host name resolving to a public address
// inject the resolver, and those only ever pass a public answer to checkUrlForRegistration,
// never to deliverOnce; every refusal here must happen before any connect, which the receivers
// check by counting TCP connections.
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { LookupAddress } from 'node:dns';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { createGuardedLookup, deliverOnce, RefusedAddressError } from '../../activities/webhooks/deliver';
import type { DeliveryAttemptResult } from '../../activities/webhooks/deliver';
import { checkUrlForRegistration, classifyAddress } from '../../infra/webhooks/address-policy';
import type { Resolver } from '../../infra/webhooks/address-policy';
import { signPayload, verifySignature } from '../../infra/webhooks/signature';
import { WEBHOOK_HEADERS } from '../../domain/webhooks/headers';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

interface Receiver {
  url: string;
  port: number;
  requests: Received[];
  connections: () => number;
  /** setTimeout that close() cancels, so a slow receiver does not outlive its test. */
  later: (ms: number, fn: () => void) => void;
  close: () => Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, receiver: Receiver) => void;

const open: Receiver[] = [];

async function startReceiver(handler: Handler): Promise<Receiver> {
  const requests: Received[] = [];
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let connections = 0;
  let receiver: Receiver | null = null;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.on('error', () => {}); // the client hanging up mid-body is expected in some tests
      if (receiver) handler(req, res, receiver);
    });
  });
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver = {
    url: `http://127.0.0.1:${port}/hooks/shade`,
    port,
    requests,
    connections: () => connections,
    later: (ms, fn) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        fn();
      }, ms);
      timers.add(timer);
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  open.push(receiver);
  return receiver;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

afterAll(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

const SECRET = 'whsec_integration_current_5b7c9d1e';
const OLD_SECRET = 'whsec_integration_previous_2a4c6e8f';
const EVENT_ID = '3f2b8c1d-4e5a-4b6c-8d7e-9f0a1b2c3d4e';
const BODY = JSON.stringify({
  event: 'quote.approved',
  id: EVENT_ID,
  organization_id: '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d',
  created_at: '2026-07-01T09:30:00.000Z',
  data: { quote_id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', quote_number: 1042, total_amount_cents: 987654, customer_name: 'Zoë Façade' },
});

function headersFor(secrets: string[], body = BODY): Record<string, string> {
  return {
    [WEBHOOK_HEADERS.event]: 'quote.approved',
    [WEBHOOK_HEADERS.delivery]: EVENT_ID,
    [WEBHOOK_HEADERS.signature]: signPayload({ secrets, body, timestamp: Math.floor(Date.now() / 1000) }),
  };
}

function send(url: string, extra: Partial<Parameters<typeof deliverOnce>[0]> = {}): Promise<DeliveryAttemptResult> {
  return deliverOnce({ url, body: BODY, headers: headersFor([SECRET]), allowPrivateNetworks: true, ...extra });
}

/** A resolver that answers the given addresses and counts its calls. */
function fixedResolver(...addresses: string[]): Resolver & { calls: number } {
  const resolver = Object.assign(
    async (): Promise<LookupAddress[]> => {
      resolver.calls++;
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
    { calls: 0 },
  );
  return resolver;
}

describe('deliverOnce: a receiver on loopback (spec 6.3, private networks allowed)', () => {
  it('POSTs the event once with the documented headers, and the signature verifies independently', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks'));
    const result = await send(receiver.url);

    expect(result).toMatchObject({ outcome: 'delivered', status: 200, error: null, responseExcerpt: 'thanks' });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(result.refusedAddress).toBeUndefined();
    expect(receiver.requests).toHaveLength(1);
    const [received] = receiver.requests;
    if (!received) throw new Error('no request');
    expect(received.method).toBe('POST');
    expect(received.url).toBe('/hooks/shade');
    expect(received.headers['content-type']).toBe('application/json');
    expect(received.headers['user-agent']).toBe('ShadeOffice-Webhooks/1.0');
    expect(received.headers['x-service-event']).toBe('quote.approved');
    expect(received.headers['x-service-delivery']).toBe(EVENT_ID);
    expect(received.headers['content-length']).toBe(String(Buffer.byteLength(BODY)));
    expect(received.body.toString('utf8')).toBe(BODY);

    const header = received.headers['x-service-signature'];
    if (typeof header !== 'string') throw new Error('no signature header');
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

    // The stripe package's verifier (same scheme) accepts our header and the raw body ...
    const event = Stripe.webhooks.constructEvent(received.body, header, SECRET) as unknown as { id: string; event: string };
    expect(event).toMatchObject({ id: EVENT_ID, event: 'quote.approved' });
    expect(verifySignature(header, received.body, SECRET).ok).toBe(true);

    // ... and rejects them once one byte of the body changes.
    const tampered = Buffer.from(received.body);
    const at = tampered.indexOf('987654');
    tampered[at] = '8'.charCodeAt(0);
    expect(() => Stripe.webhooks.constructEvent(tampered, header, SECRET)).toThrow(/No signatures found matching/);
    expect(verifySignature(header, tampered, SECRET)).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('during a secret rotation (D6) carries both signatures, each verifying with its own secret', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    const result = await send(receiver.url, { headers: headersFor([SECRET, OLD_SECRET]) });
    expect(result).toMatchObject({ outcome: 'delivered', status: 204, responseExcerpt: '' });

    const [received] = receiver.requests;
    const header = received?.headers['x-service-signature'];
    if (!received || typeof header !== 'string') throw new Error('no request');
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(() => Stripe.webhooks.constructEvent(received.body, header, SECRET)).not.toThrow();
    expect(() => Stripe.webhooks.constructEvent(received.body, header, OLD_SECRET)).not.toThrow();
    expect(() => Stripe.webhooks.constructEvent(received.body, header, 'whsec_someone_else')).toThrow(/No signatures found matching/);
  });

  it('sends its own content-type and user-agent whatever the caller passes', async () => {
    const receiver = await startReceiver((_req, res) => res.end());
    await send(receiver.url, { headers: { ...headersFor([SECRET]), 'Content-Type': 'text/plain', 'User-Agent': 'x', 'Content-Length': '1' } });
    expect(receiver.requests[0]?.headers['content-type']).toBe('application/json');
    expect(receiver.requests[0]?.headers['user-agent']).toBe('ShadeOffice-Webhooks/1.0');
    expect(receiver.requests[0]?.body.toString()).toBe(BODY);
  });

  it('resolves a host name through the injected lookup and connects to what it answered', async () => {
    const receiver = await startReceiver((_req, res) => res.end('ok'));
    const lookup = fixedResolver('127.0.0.1');
    const result = await send(`http://receiver.test:${receiver.port}/hooks/shade`, { lookup });
    expect(result).toMatchObject({ outcome: 'delivered', status: 200 });
    expect(lookup.calls).toBe(1);
    expect(receiver.requests[0]?.headers.host).toBe(`receiver.test:${receiver.port}`);
  });
});

describe('deliverOnce: which answers are retried (spec 6.3 rules 4 and 6)', () => {
  it.each([
    [200, 'delivered'],
    [201, 'delivered'],
    [202, 'delivered'],
    [500, 'retryable_failure'],
    [502, 'retryable_failure'],
    [503, 'retryable_failure'],
    [504, 'retryable_failure'],
    [408, 'retryable_failure'],
    [429, 'retryable_failure'],
    [400, 'permanent_failure'],
    [401, 'permanent_failure'],
    [403, 'permanent_failure'],
    [404, 'permanent_failure'],
    [410, 'permanent_failure'],
    [422, 'permanent_failure'],
  ] as const)('%i -> %s, with the response excerpt kept', async (status, outcome) => {
    const receiver = await startReceiver((_req, res) => res.writeHead(status, { 'content-type': 'application/json' }).end(`{"status":${status}}`));
    const result = await send(receiver.url);
    expect(result).toMatchObject({ outcome, status, error: null, responseExcerpt: `{"status":${status}}` });
    expect(receiver.requests).toHaveLength(1);
  });

  it.each([301, 302, 303, 307, 308])('%i is not followed: a permanent failure, the Location never requested', async (status) => {
    const target = await startReceiver((_req, res) => res.end('followed'));
    const receiver = await startReceiver((_req, res) => res.writeHead(status, { location: target.url }).end());
    const result = await send(receiver.url);
    expect(result).toMatchObject({ outcome: 'permanent_failure', status, error: `redirect not followed (Location: ${target.url})` });
    expect(receiver.requests).toHaveLength(1);
    expect(target.requests).toHaveLength(0);
    expect(target.connections()).toBe(0);
  });
});

describe('deliverOnce: failures without a usable answer', () => {
  it('a receiver slower than the deadline: aborted at the deadline, a retryable timeout', async () => {
    const receiver = await startReceiver((_req, res, r) => r.later(2000, () => res.end('too late')));
    const result = await send(receiver.url, { timeoutMs: 300 });
    expect(result).toMatchObject({ outcome: 'retryable_failure', status: null, responseExcerpt: null, error: 'timeout: no response within 300 ms' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(1500);
    expect(receiver.requests).toHaveLength(1);
    // D13: it was sent, so the attempt keeps the request (headers as the receiver got them).
    expect(result.requestHeaders?.['X-Service-Event']).toBe(receiver.requests[0]!.headers['x-service-event']);
    expect(result.responseHeaders).toBeUndefined();
  });

  it('the real 8-second window (spec 6.3 rule 3): a receiver answering after 9 s counts as failed at ~8 s', async () => {
    const receiver = await startReceiver((_req, res, r) => r.later(9000, () => res.end('too late')));
    const result = await send(receiver.url);
    expect(result).toMatchObject({ outcome: 'retryable_failure', status: null, error: 'timeout: no response within 8000 ms' });
    expect(result.durationMs).toBeGreaterThanOrEqual(7950);
    expect(result.durationMs).toBeLessThan(8900);
  }, 20_000);

  it('the deadline covers a stalled body too: the status decides, the excerpt is what arrived', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    const result = await send(receiver.url, { timeoutMs: 300 });
    expect(result).toMatchObject({ outcome: 'delivered', status: 200, responseExcerpt: 'partial' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(1500);
  });

  it('an unreachable port: a retryable network error', async () => {
    const gone = await startReceiver(() => {});
    const url = gone.url;
    await gone.close();
    open.splice(open.indexOf(gone), 1);
    const result = await send(url);
    expect(result).toMatchObject({ outcome: 'retryable_failure', status: null, responseExcerpt: null });
    expect(result.error).toMatch(/ECONNREFUSED/);
    expect(result.requestHeaders).toBeUndefined(); // D13: nothing was sent
  });

  it('a receiver that hangs up without answering: a retryable network error', async () => {
    const receiver = await startReceiver((req) => req.socket.destroy());
    const result = await send(receiver.url);
    expect(result).toMatchObject({ outcome: 'retryable_failure', status: null });
    expect(result.error).toMatch(/socket hang up|ECONNRESET/);
  });

  it('a 10 MB response body: the excerpt is bounded and the body is not drained', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024, 'x');
    const receiver = await startReceiver((_req, res) => res.writeHead(500, { 'content-length': String(big.length) }).end(big));
    const result = await send(receiver.url);
    expect(result).toMatchObject({ outcome: 'retryable_failure', status: 500 });
    expect(result.responseExcerpt).toBe('x'.repeat(4096)); // D13: the first 4 KiB

    const small = await send(receiver.url, { maxExcerptBytes: 100 });
    expect(small.responseExcerpt).toHaveLength(100);
  });

  it('a header value that cannot be sent (a newline) is a permanent failure, nothing sent', async () => {
    const receiver = await startReceiver((_req, res) => res.end());
    const result = await send(receiver.url, { headers: { ...headersFor([SECRET]), [WEBHOOK_HEADERS.event]: 'quote.approved\r\nX-Injected: 1' } });
    expect(result).toMatchObject({ outcome: 'permanent_failure', status: null });
    expect(result.error).toMatch(/^invalid request: /);
    expect(receiver.connections()).toBe(0);
    expect(result.requestHeaders).toBeUndefined();
  });

  it('an unusable URL is a permanent failure', async () => {
    await expect(send('not a url')).resolves.toMatchObject({ outcome: 'permanent_failure', error: 'invalid URL' });
    await expect(send('ftp://127.0.0.1/')).resolves.toMatchObject({ outcome: 'permanent_failure', error: 'unsupported URL scheme ftp:' });
  });
});

describe('deliverOnce: non-public destinations refused before any connect (D6, spec 6.3 rule 6)', () => {
  const strict = { allowPrivateNetworks: false } as const;

  it('a literal loopback address: http://127.0.0.1:<port> and http://[::1]:<port>', async () => {
    const receiver = await startReceiver((_req, res) => res.end('should not happen'));
    const v4 = await send(receiver.url, strict);
    expect(v4).toMatchObject({ outcome: 'permanent_failure', status: null, refusedAddress: '127.0.0.1' });
    expect(v4.error).toMatch(/^refused: 127\.0\.0\.1 is not a public address \(loopback\)/);
    const v6 = await send(`http://[::1]:${receiver.port}/`, strict);
    expect(v6).toMatchObject({ outcome: 'permanent_failure', refusedAddress: '::1' });
    const mapped = await send(`https://[::ffff:127.0.0.1]:${receiver.port}/`, strict);
    expect(mapped).toMatchObject({ outcome: 'permanent_failure', refusedAddress: '::ffff:7f00:1' });
    expect(receiver.connections()).toBe(0);
  });

  // The cases below hand deliverOnce non-loopback answers. Were the refusal ever to regress, they
  // would make a real connect attempt off this machine, so they run only after the same wiring
  // has refused a loopback answer (where a regression merely reaches our own receiver) and after
  // the classifier has confirmed the address is not public.
  let refusalProven = false;
  const guardOffMachine = (...addresses: string[]) => {
    if (!refusalProven) throw new Error('not run: the loopback refusal did not hold, so a non-loopback answer might be connected to');
    for (const address of addresses) {
      if (address !== '93.184.216.34' && classifyAddress(address).public) throw new Error(`not run: ${address} classifies as public`);
    }
  };

  it.each([
    ['127.0.0.1', /loopback/],
    ['::1', /loopback/],
    ['::ffff:127.0.0.1', /IPv4-mapped/],
  ])('a host name whose lookup answers %s', async (address, category) => {
    const receiver = await startReceiver((_req, res) => res.end('should not happen'));
    const lookup = fixedResolver(address);
    // https, so that the address, not the scheme, is what gets refused; the receiver speaks http
    // and would count the TLS handshake as a connection if one were made.
    const result = await send(`https://hooks.example.test:${receiver.port}/hooks/shade`, { ...strict, lookup });
    expect(result).toMatchObject({ outcome: 'permanent_failure', status: null, refusedAddress: address });
    expect(result.error).toMatch(category);
    expect(lookup.calls).toBe(1);
    expect(receiver.connections()).toBe(0);
    refusalProven = true;
  });

  it.each([
    ['10.0.0.1', /private/],
    ['169.254.169.254', /link-local/],
  ])('a host name whose lookup answers %s', async (address, category) => {
    guardOffMachine(address);
    const receiver = await startReceiver((_req, res) => res.end('should not happen'));
    const lookup = fixedResolver(address);
    const result = await send(`https://hooks.example.test:${receiver.port}/hooks/shade`, { ...strict, lookup });
    expect(result).toMatchObject({ outcome: 'permanent_failure', status: null, refusedAddress: address });
    expect(result.error).toMatch(category);
    expect(lookup.calls).toBe(1);
    expect(receiver.connections()).toBe(0);
  });

  it('a host name answering a private and a public address: refused as a whole, nothing connected', async () => {
    // Loopback first, so that even a regression checking only the first answer stays on this
    // machine; that every answer is checked is shown without any socket in the next describe.
    guardOffMachine('127.0.0.1', '93.184.216.34');
    const receiver = await startReceiver((_req, res) => res.end('should not happen'));
    const result = await send(`https://mixed.example.test:${receiver.port}/`, { ...strict, lookup: fixedResolver('127.0.0.1', '93.184.216.34') });
    expect(result).toMatchObject({ outcome: 'permanent_failure', refusedAddress: '127.0.0.1' });
    expect(receiver.connections()).toBe(0);
    expect(result.requestHeaders).toBeUndefined();
  });

  it('DNS rebinding: public at registration, loopback at delivery -> refused at connect time', async () => {
    const receiver = await startReceiver((_req, res) => res.end('should not happen'));
    const answers = ['93.184.216.34', '127.0.0.1'];
    let calls = 0;
    const rebinding: Resolver = async (hostname) => {
      expect(hostname).toBe('rebind.example.test');
      const address = answers[Math.min(calls++, answers.length - 1)] ?? '127.0.0.1';
      return [{ address, family: 4 }];
    };
    const url = `https://rebind.example.test:${receiver.port}/hooks/shade`;

    await expect(checkUrlForRegistration(url, { allowPrivateNetworks: false, resolve: rebinding })).resolves.toEqual({ ok: true });
    const result = await send(url, { ...strict, lookup: rebinding });
    expect(result).toMatchObject({ outcome: 'permanent_failure', status: null, refusedAddress: '127.0.0.1' });
    expect(calls).toBe(2);
    expect(receiver.requests).toHaveLength(0);
    expect(receiver.connections()).toBe(0);
  });

  it('plain http to a host name is refused without resolving it', async () => {
    const lookup = fixedResolver('127.0.0.1');
    const result = await send('http://hooks.example.test/', { ...strict, lookup });
    expect(result).toMatchObject({ outcome: 'permanent_failure', error: 'URL must use https' });
    expect(lookup.calls).toBe(0);
  });

  it('a lookup failure is a retryable network error', async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example.test'), { code: 'ENOTFOUND' });
    };
    const result = await send('https://nowhere.example.test/', { ...strict, lookup: failing });
    expect(result).toMatchObject({ outcome: 'retryable_failure', status: null });
    expect(result.error).toMatch(/ENOTFOUND/);
  });
});

describe('deliverOnce under OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK (development): loopback receivers only, the guard still on', () => {
  const loopbackOnly = { allowPrivateNetworks: false, allowLoopback: true } as const;

  it('delivers over http to a receiver on 127.0.0.1, [::1] and localhost', async () => {
    const receiver = await startReceiver((_req, res) => res.end('ok'));
    await expect(send(receiver.url, loopbackOnly)).resolves.toMatchObject({ outcome: 'delivered', status: 200 });
    const localhost = fixedResolver('127.0.0.1');
    await expect(send(`http://localhost:${receiver.port}/hooks/shade`, { ...loopbackOnly, lookup: localhost })).resolves.toMatchObject({ outcome: 'delivered' });
    expect(localhost.calls).toBe(1);
    expect(receiver.requests).toHaveLength(2);
    expect(verifySignature(String(receiver.requests[0]!.headers[WEBHOOK_HEADERS.signature.toLowerCase()]), receiver.requests[0]!.body, SECRET)).toMatchObject({ ok: true });
  });

  // As above: a non-loopback answer is handed over only after the same wiring has refused an
  // answer that, were the guard off, would merely reach our own receiver.
  let guardProven = false;

  it('refuses an IPv4-mapped loopback answer before connecting (the guard runs under the allowance)', async () => {
    const receiver = await startReceiver((_req, res) => res.end('should not happen'));
    const result = await send(`https://hooks.example.test:${receiver.port}/`, { ...loopbackOnly, lookup: fixedResolver('::ffff:127.0.0.1') });
    expect(result).toMatchObject({ outcome: 'permanent_failure', status: null, refusedAddress: '::ffff:127.0.0.1' });
    expect(receiver.connections()).toBe(0);
    guardProven = true;
  });

  it.each([
    ['10.0.0.1', /private/],
    ['169.254.169.254', /link-local/],
  ])('refuses a host name answering %s (beside a loopback answer) before connecting', async (address, category) => {
    if (!guardProven || classifyAddress(address).public) throw new Error('not run: the guard was not shown to hold under the allowance');
    const receiver = await startReceiver((_req, res) => res.end('should not happen'));
    const lookup = fixedResolver('127.0.0.1', address);
    const result = await send(`https://hooks.example.test:${receiver.port}/`, { ...loopbackOnly, lookup });
    expect(result).toMatchObject({ outcome: 'permanent_failure', status: null, refusedAddress: address });
    expect(result.error).toMatch(category);
    expect(receiver.connections()).toBe(0);
  });

  it('refuses a private literal and plain http to any other host without resolving', async () => {
    if (!guardProven) throw new Error('not run: the guard was not shown to hold under the allowance');
    const lookup = fixedResolver('127.0.0.1');
    await expect(send('https://10.0.0.1/', { ...loopbackOnly, lookup })).resolves.toMatchObject({ outcome: 'permanent_failure', refusedAddress: '10.0.0.1' });
    await expect(send('http://hooks.example.test/', { ...loopbackOnly, lookup })).resolves.toMatchObject({
      outcome: 'permanent_failure',
      error: 'URL must use https (http only for a loopback receiver)',
    });
    expect(lookup.calls).toBe(0);
  });
});

describe('createGuardedLookup: the connect-time hook on its own (no socket involved)', () => {
  type Outcome = { err: Error | null; address: string | LookupAddress[]; family?: number | undefined };
  const run = (lookup: ReturnType<typeof createGuardedLookup>, options: Parameters<ReturnType<typeof createGuardedLookup>>[1]) =>
    new Promise<Outcome>((resolve) => lookup('hooks.example.test', options, (err, address, family) => resolve({ err, address, family })));

  it.each([
    [['93.184.216.34', '10.0.0.1'], '10.0.0.1'],
    [['2606:2800:220:1::1', '93.184.216.34', 'fd00::1'], 'fd00::1'],
    [['10.0.0.1', '93.184.216.34'], '10.0.0.1'],
  ])('refuses %j because of %s, whichever position it has', async (answers, refused) => {
    const seen: string[] = [];
    const lookup = createGuardedLookup(fixedResolver(...answers), false, (c) => seen.push(c.address));
    const { err, address } = await run(lookup, { all: true });
    expect(err).toBeInstanceOf(RefusedAddressError);
    expect((err as RefusedAddressError).classification.address).toBe(refused);
    expect(address).toBe('');
    expect(seen).toEqual([refused]);
  });

  it('passes public answers through in order, in both callback shapes, honouring the family asked for', async () => {
    const lookup = createGuardedLookup(fixedResolver('2606:2800:220:1::1', '93.184.216.34'), false);
    await expect(run(lookup, { all: true })).resolves.toEqual({
      err: null,
      address: [
        { address: '2606:2800:220:1::1', family: 6 },
        { address: '93.184.216.34', family: 4 },
      ],
      family: undefined,
    });
    await expect(run(lookup, {})).resolves.toEqual({ err: null, address: '2606:2800:220:1::1', family: 6 });
    await expect(run(lookup, { family: 4 })).resolves.toEqual({ err: null, address: '93.184.216.34', family: 4 });
    const none = await run(createGuardedLookup(fixedResolver('93.184.216.34'), false), { family: 6 });
    expect((none.err as NodeJS.ErrnoException | null)?.code).toBe('ENOTFOUND');
  });

  it('with private networks allowed, private answers pass', async () => {
    const lookup = createGuardedLookup(fixedResolver('10.0.0.1', '::1'), true);
    await expect(run(lookup, { all: true })).resolves.toMatchObject({ err: null, address: [{ address: '10.0.0.1' }, { address: '::1' }] });
  });

  it('a resolver that throws synchronously becomes a lookup error', async () => {
    const throwing = ((): never => {
      throw new Error('resolver bug');
    }) as unknown as Resolver;
    const { err } = await run(createGuardedLookup(throwing, false), { all: true });
    expect(err?.message).toBe('resolver bug');
  });
});

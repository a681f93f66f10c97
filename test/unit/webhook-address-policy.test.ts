// D6 and spec 6.3 rule 6: which destinations outbound webhooks may reach, and the
// registration-time URL check whose reasons become 400 messages.
import { describe, expect, it } from '@jest/globals';
import type { LookupAddress } from 'node:dns';
import { checkUrlForRegistration, classifyAddress } from '../../infra/webhooks/address-policy';
import type { AddressCategory, Resolver } from '../../infra/webhooks/address-policy';

// address -> null when public, else the category reported.
const TABLE: ReadonlyArray<readonly [string, AddressCategory | null]> = [
  // Public, v4 and v6.
  ['8.8.8.8', null],
  ['1.1.1.1', null],
  ['93.184.216.34', null],
  ['172.15.255.255', null], // just below 172.16/12
  ['172.32.0.0', null], // just above it
  ['100.63.255.255', null], // just below 100.64/10
  ['100.128.0.0', null],
  ['198.17.255.255', null], // just below 198.18/15
  ['198.20.0.0', null],
  ['223.255.255.255', null], // just below 224/4
  ['2606:4700:4700::1111', null],
  ['2001:4860:4860::8888', null],
  ['[2001:4860:4860::8888]', null],
  ['64:ff9b::808:808', null], // NAT64 of 8.8.8.8: classified by the embedded address
  ['2002:808:808::1', null], // 6to4 of 8.8.8.8
  // Unspecified.
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['::', 'unspecified'],
  ['0:0:0:0:0:0:0:0', 'unspecified'],
  // Loopback.
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  // Private.
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  // Shared address space (carrier-grade NAT).
  ['100.64.0.1', 'shared (CGNAT)'],
  ['100.127.255.255', 'shared (CGNAT)'],
  // Link-local, including the cloud metadata address.
  ['169.254.169.254', 'link-local'],
  ['169.254.0.1', 'link-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  // Unique-local and the deprecated site-local.
  ['fc00::1', 'unique-local'],
  ['fd12:3456:789a::1', 'unique-local'],
  ['fec0::1', 'site-local'],
  // Multicast and broadcast.
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['ff02::1', 'multicast'],
  ['ff0e::1', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  // Reserved.
  ['240.0.0.1', 'reserved'],
  ['254.1.2.3', 'reserved'],
  ['192.88.99.1', 'reserved'],
  // Documentation and benchmarking.
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['2001:2::1', 'benchmarking'],
  ['192.0.0.8', 'protocol assignment'],
  // IPv4-mapped: refused outright, whatever they embed (text and hex forms alike).
  ['::ffff:127.0.0.1', 'IPv4-mapped'],
  ['::ffff:7f00:1', 'IPv4-mapped'],
  ['[::ffff:7f00:1]', 'IPv4-mapped'],
  ['0:0:0:0:0:ffff:a00:1', 'IPv4-mapped'],
  ['::ffff:169.254.169.254', 'IPv4-mapped'],
  ['::ffff:8.8.8.8', 'IPv4-mapped'],
  // IPv4-compatible (deprecated): refused outright.
  ['::127.0.0.1', 'IPv4-compatible'],
  ['::a00:1', 'IPv4-compatible'],
  ['::8.8.8.8', 'IPv4-compatible'],
  // NAT64, 6to4 and Teredo carrying a non-public IPv4 address: classified by it.
  ['64:ff9b::7f00:1', 'loopback'],
  ['64:ff9b::10.0.0.1', 'private'],
  ['64:ff9b:1::a00:1', 'NAT64 local-use'],
  ['2002:a00:1::1', 'private'], // 6to4 of 10.0.0.1
  ['2002:7f00:1::', 'loopback'], // 6to4 of 127.0.0.1
  ['2001:0:a00:1::1', 'private'], // Teredo server 10.0.0.1
  ['2001:0:808:808::80ff:fffe', 'loopback'], // Teredo client ~7f00:0001 = 127.0.0.1
  // Outside global unicast.
  ['100::1', 'discard-only'],
  ['5f00::1', 'not global unicast'],
  ['4000::1', 'not global unicast'],
  // Not addresses at all.
  ['example.com', 'invalid'],
  ['', 'invalid'],
  ['127.1', 'invalid'],
  ['2130706433', 'invalid'],
  ['1.2.3.256', 'invalid'],
  ['::ffff:1.2.3', 'invalid'],
];

describe('classifyAddress (D6, spec 6.3 rule 6)', () => {
  it.each(TABLE)('%s -> %s', (address, expected) => {
    const result = classifyAddress(address);
    if (expected === null) {
      expect(result.public).toBe(true);
    } else {
      expect(result).toMatchObject({ public: false, category: expected });
    }
  });

  it('names the embedded IPv4 address for NAT64/6to4/Teredo refusals', () => {
    expect(classifyAddress('2002:a9fe:a9fe::1')).toMatchObject({ public: false, category: 'link-local', via: '169.254.169.254' });
  });

  it('refuses a zone id on an otherwise public address (a zone only makes sense on a scoped address)', () => {
    expect(classifyAddress('2001:4860:4860::8888%eth0')).toMatchObject({ public: false, category: 'scoped (zone id)' });
  });
});

const answers =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));

const unused: Resolver = async () => {
  throw new Error('the resolver must not be called');
};

describe('checkUrlForRegistration (D6: refused with 400 at registration)', () => {
  const strict = (resolve: Resolver = unused) => ({ allowPrivateNetworks: false, resolve });

  it('accepts an https URL whose every address is public', async () => {
    await expect(checkUrlForRegistration('https://hooks.example.com/shade?x=1', strict(answers('93.184.216.34', '2606:2800:220:1::1')))).resolves.toEqual({
      ok: true,
    });
  });

  it.each([
    ['10.0.0.1', /10\.0\.0\.1 is not a public address \(private\)/],
    ['127.0.0.1', /loopback/],
    ['169.254.169.254', /link-local/],
    ['::1', /loopback/],
    ['::ffff:7f00:1', /IPv4-mapped/],
  ])('refuses a name resolving to %s', async (address, reason) => {
    const result = await checkUrlForRegistration('https://hooks.example.com/', strict(answers(address)));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.reason).toMatch(reason);
      expect(result.reason).toMatch(/^host hooks\.example\.com resolves to /);
    }
  });

  it('refuses when any one of several answers is not public', async () => {
    const result = await checkUrlForRegistration('https://hooks.example.com/', strict(answers('93.184.216.34', '10.0.0.1')));
    expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(/10\.0\.0\.1/) });
  });

  it.each([
    ['https://127.0.0.1/hook', /127\.0\.0\.1 is not a public address \(loopback\)/],
    ['https://[::1]/hook', /::1 is not a public address \(loopback\)/],
    ['https://[::ffff:127.0.0.1]/hook', /IPv4-mapped/],
    ['https://2130706433/hook', /127\.0\.0\.1.*loopback/], // WHATWG URL normalises the integer form
    ['https://0x7f.1/hook', /127\.0\.0\.1.*loopback/],
    ['https://169.254.169.254/latest/meta-data', /link-local/],
    ['https://localhost/hook', /loopback name/],
    ['https://api.localhost/hook', /loopback name/],
  ])('refuses %s without resolving', async (url, reason) => {
    const result = await checkUrlForRegistration(url, strict());
    expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
  });

  it('accepts a public literal address without resolving', async () => {
    await expect(checkUrlForRegistration('https://8.8.8.8/hook', strict())).resolves.toEqual({ ok: true });
  });

  it.each([
    ['http://hooks.example.com/', 'URL must use https'],
    ['ftp://hooks.example.com/', 'URL must use https'],
    ['https://user:pw@hooks.example.com/', 'URL must not contain a user name or password'],
    ['https://user@hooks.example.com/', 'URL must not contain a user name or password'],
    ['not a url', 'URL is not a valid absolute URL'],
    ['/relative/path', 'URL is not a valid absolute URL'],
    [`https://hooks.example.com/${'a'.repeat(2000)}`, 'URL must be at most 2000 characters'],
  ])('refuses %s', async (url, reason) => {
    await expect(checkUrlForRegistration(url, strict())).resolves.toEqual({ ok: false, reason });
  });

  it('refuses a host that does not resolve, or resolves to nothing', async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    await expect(checkUrlForRegistration('https://nowhere.example/', strict(failing))).resolves.toEqual({
      ok: false,
      reason: 'host nowhere.example could not be resolved',
    });
    await expect(checkUrlForRegistration('https://nowhere.example/', strict(answers()))).resolves.toEqual({
      ok: false,
      reason: 'host nowhere.example could not be resolved',
    });
  });

  it('gives up on a resolver that hangs', async () => {
    const hanging: Resolver = () => new Promise(() => {});
    await expect(
      checkUrlForRegistration('https://slow.example/', { allowPrivateNetworks: false, resolve: hanging, resolveTimeoutMs: 50 }),
    ).resolves.toEqual({ ok: false, reason: 'host slow.example could not be resolved' });
  });

  it('with OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: http and private destinations are accepted, nothing is resolved', async () => {
    const lax = { allowPrivateNetworks: true, resolve: unused };
    await expect(checkUrlForRegistration('http://127.0.0.1:4000/hook', lax)).resolves.toEqual({ ok: true });
    await expect(checkUrlForRegistration('http://receiver.internal/hook', lax)).resolves.toEqual({ ok: true });
    await expect(checkUrlForRegistration('https://[::1]:8443/', lax)).resolves.toEqual({ ok: true });
    // Still refused: other schemes and credentials.
    await expect(checkUrlForRegistration('ftp://127.0.0.1/', lax)).resolves.toEqual({ ok: false, reason: 'URL must use https or http' });
    await expect(checkUrlForRegistration('http://a:b@127.0.0.1/', lax)).resolves.toMatchObject({ ok: false });
  });
});

describe('OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: the narrow development allowance (loopback receivers only)', () => {
  const loopback = (resolve: Resolver = unused) => ({ allowPrivateNetworks: false, allowLoopback: true, resolve });

  it.each(['http://127.0.0.1:4242/webhooks', 'http://127.9.9.9/', 'http://[::1]:4242/', 'http://localhost:4242/', 'https://127.0.0.1/', 'http://api.localhost/'])(
    'accepts the loopback receiver %s (http allowed for it), without resolving',
    async (url) => {
      await expect(checkUrlForRegistration(url, loopback())).resolves.toEqual({ ok: true });
    },
  );

  it('accepts a name that resolves to loopback only, or to loopback and public addresses', async () => {
    await expect(checkUrlForRegistration('https://dev.example.test/', loopback(answers('127.0.0.1', '::1')))).resolves.toEqual({ ok: true });
    await expect(checkUrlForRegistration('https://dev.example.test/', loopback(answers('127.0.0.1', '93.184.216.34')))).resolves.toEqual({ ok: true });
  });

  it.each([
    ['https://10.0.0.1/', /private/],
    ['https://169.254.169.254/latest/meta-data', /link-local/],
    ['https://192.168.1.20/', /private/],
    ['https://[fd00::1]/', /unique-local/],
    ['https://[::ffff:127.0.0.1]/', /IPv4-mapped/], // embeds loopback, is not loopback itself
    ['https://[64:ff9b::7f00:1]/', /embedding 127\.0\.0\.1/], // reaches a NAT64 gateway
    ['https://0.0.0.0/', /unspecified/],
  ])('still refuses every other non-public literal: %s', async (url, reason) => {
    await expect(checkUrlForRegistration(url, loopback())).resolves.toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
  });

  it.each([
    ['10.0.0.5', /private/],
    ['169.254.169.254', /link-local/],
    ['172.17.0.1', /private/],
  ])('still refuses a name resolving to %s, even beside a loopback answer', async (address, reason) => {
    const result = await checkUrlForRegistration('https://dev.example.test/', loopback(answers('127.0.0.1', address)));
    expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
  });

  it('allows http only to a loopback receiver', async () => {
    await expect(checkUrlForRegistration('http://hooks.example.com/', loopback())).resolves.toEqual({
      ok: false,
      reason: 'URL must use https (http only for a loopback receiver such as http://127.0.0.1:<port>/)',
    });
    await expect(checkUrlForRegistration('http://10.0.0.1/', loopback())).resolves.toMatchObject({ ok: false });
  });
});

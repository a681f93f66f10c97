// Which destinations outbound webhooks may reach (spec 6.3 rule 6, decision D6).
//
// A tenant chooses the URL, so without this policy the worker would POST wherever a tenant points
// it: the cloud metadata service, the database, an admin port on loopback. The same
// classification runs at registration (checkUrlForRegistration, a 400) and at connect time on
// the address actually resolved for each connection (deliver.ts), which is what stops a DNS
// answer that changes between the two.
//
// The policy is an allowlist in spirit: IPv6 must be global unicast (2000::/3) and then not in a
// special-purpose block; IPv4 must be outside every special-purpose block of the IANA registry
// that is not globally reachable.
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';

export type AddressCategory =
  | 'invalid'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared (CGNAT)'
  | 'link-local'
  | 'unique-local'
  | 'site-local'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'documentation'
  | 'benchmarking'
  | 'protocol assignment'
  | 'IPv4-mapped'
  | 'IPv4-compatible'
  | 'discard-only'
  | 'NAT64 local-use'
  | 'not global unicast'
  | 'scoped (zone id)';

export type AddressClassification =
  | { public: true; address: string }
  | { public: false; address: string; category: AddressCategory; via?: string };

interface Block {
  prefix: Uint8Array;
  bits: number;
  category: AddressCategory;
}

function v4Block(cidr: string, category: AddressCategory): Block {
  const [ip, bits] = cidr.split('/');
  return { prefix: parseV4(ip ?? ''), bits: Number(bits), category };
}

function v6Block(cidr: string, category: AddressCategory): Block {
  const [ip, bits] = cidr.split('/');
  const prefix = parseV6(ip ?? '');
  if (!prefix) throw new Error(`bad built-in block ${cidr}`);
  return { prefix, bits: Number(bits), category };
}

// IANA IPv4 Special-Purpose Address Registry, the entries that are not globally reachable.
// Order matters only for the category reported: the broadcast /32 sits inside reserved 240/4.
const V4_BLOCKS: readonly Block[] = [
  v4Block('0.0.0.0/8', 'unspecified'),
  v4Block('10.0.0.0/8', 'private'),
  v4Block('100.64.0.0/10', 'shared (CGNAT)'),
  v4Block('127.0.0.0/8', 'loopback'),
  v4Block('169.254.0.0/16', 'link-local'),
  v4Block('172.16.0.0/12', 'private'),
  v4Block('192.0.0.0/24', 'protocol assignment'),
  v4Block('192.0.2.0/24', 'documentation'),
  // The deprecated 6to4 relay anycast (RFC 7526): not a place a receiver lives.
  v4Block('192.88.99.0/24', 'reserved'),
  v4Block('192.168.0.0/16', 'private'),
  v4Block('198.18.0.0/15', 'benchmarking'),
  v4Block('198.51.100.0/24', 'documentation'),
  v4Block('203.0.113.0/24', 'documentation'),
  v4Block('224.0.0.0/4', 'multicast'),
  v4Block('255.255.255.255/32', 'broadcast'),
  v4Block('240.0.0.0/4', 'reserved'),
];

// Checked before the global-unicast test so that well-known non-global addresses get a precise
// category in the 400 message rather than "not global unicast".
const V6_BLOCKS: readonly Block[] = [
  v6Block('::/128', 'unspecified'),
  v6Block('::1/128', 'loopback'),
  v6Block('::ffff:0:0/96', 'IPv4-mapped'),
  v6Block('::/96', 'IPv4-compatible'),
  v6Block('64:ff9b:1::/48', 'NAT64 local-use'),
  v6Block('100::/64', 'discard-only'),
  v6Block('2001:2::/48', 'benchmarking'),
  v6Block('2001:10::/28', 'protocol assignment'), // ORCHID (deprecated)
  v6Block('2001:20::/28', 'protocol assignment'), // ORCHIDv2
  v6Block('2001:db8::/32', 'documentation'),
  v6Block('3fff::/20', 'documentation'),
  v6Block('fc00::/7', 'unique-local'),
  v6Block('fe80::/10', 'link-local'),
  v6Block('fec0::/10', 'site-local'),
  v6Block('ff00::/8', 'multicast'),
];

const GLOBAL_UNICAST = v6Block('2000::/3', 'not global unicast');
const NAT64_WELL_KNOWN = v6Block('64:ff9b::/96', 'not global unicast');
const SIX_TO_FOUR = v6Block('2002::/16', 'not global unicast');
const TEREDO = v6Block('2001::/32', 'not global unicast');

function inBlock(bytes: Uint8Array, block: Block): boolean {
  if (bytes.length !== block.prefix.length) return false;
  let remaining = block.bits;
  for (let i = 0; remaining > 0; i++, remaining -= 8) {
    const mask = remaining >= 8 ? 0xff : (0xff << (8 - remaining)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((block.prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** Dotted quad to 4 bytes; the caller has validated it with isIP. */
function parseV4(text: string): Uint8Array {
  return Uint8Array.from(text.split('.').map(Number));
}

/** IPv6 text (no zone, no brackets) to 16 bytes, including `::` and a trailing dotted quad. */
function parseV6(text: string): Uint8Array | null {
  if (isIP(text) !== 6) return null;
  let groups: string[];
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  let tailWords: number[] = [];
  let head = text;
  if (tail.includes('.')) {
    const v4 = parseV4(tail);
    tailWords = [((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0)];
    head = text.slice(0, lastColon + 1);
    // "::1.2.3.4" leaves "::"; "::ffff:1.2.3.4" leaves "::ffff:"; drop a dangling single colon.
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const wordsNeeded = 8 - tailWords.length;
  const gap = head.indexOf('::');
  if (gap >= 0) {
    const left = head.slice(0, gap).split(':').filter((g) => g !== '');
    const right = head.slice(gap + 2).split(':').filter((g) => g !== '');
    groups = [...left, ...Array<string>(wordsNeeded - left.length - right.length).fill('0'), ...right];
  } else {
    groups = head === '' ? [] : head.split(':');
  }
  const words = [...groups.map((g) => parseInt(g, 16)), ...tailWords];
  if (words.length !== 8 || words.some((w) => !Number.isInteger(w) || w < 0 || w > 0xffff)) return null;
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[i * 2] = w >> 8;
    bytes[i * 2 + 1] = w & 0xff;
  });
  return bytes;
}

function v4Text(bytes: Uint8Array): string {
  return Array.from(bytes).join('.');
}

function classifyV4Bytes(bytes: Uint8Array): AddressCategory | null {
  return V4_BLOCKS.find((b) => inBlock(bytes, b))?.category ?? null;
}

/** Strips URL brackets and a zone id; reports whether a zone id was present. */
function normalise(input: string): { address: string; zoned: boolean } {
  let address = input.trim();
  if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1);
  const percent = address.indexOf('%');
  if (percent >= 0) return { address: address.slice(0, percent), zoned: true };
  return { address, zoned: false };
}

/**
 * Whether outbound webhooks may connect to this IP address (v4 or v6 text, optionally in URL
 * brackets or with a zone id). Anything that does not parse as an IP address is not public.
 *
 * Addresses that embed an IPv4 address:
 * - IPv4-mapped (::ffff:0:0/96) and IPv4-compatible (::/96) are refused outright, whatever they
 *   embed: no public receiver is published that way, and on a dual-stack socket a mapped
 *   address reaches the embedded IPv4 host, which makes it a classic way around v4-only filters.
 * - NAT64 (64:ff9b::/96), 6to4 (2002::/16) and Teredo (2001::/32) are classified by the IPv4
 *   address they carry (for Teredo both the server and the de-obfuscated client address), so
 *   an IPv6-only deployment behind NAT64 can still reach public receivers while
 *   64:ff9b::7f00:1 stays loopback.
 */
export function classifyAddress(input: string): AddressClassification {
  const { address, zoned } = normalise(input);
  const family = isIP(address);
  if (family === 4) {
    const category = classifyV4Bytes(parseV4(address));
    if (category) return { public: false, address, category };
    return zoned ? { public: false, address, category: 'scoped (zone id)' } : { public: true, address };
  }
  const bytes = family === 6 ? parseV6(address) : null;
  if (!bytes) return { public: false, address, category: 'invalid' };

  const embedded = (v4: Uint8Array): AddressClassification | null => {
    const category = classifyV4Bytes(v4);
    return category ? { public: false, address, category, via: v4Text(v4) } : null;
  };

  if (inBlock(bytes, NAT64_WELL_KNOWN)) {
    const refused = embedded(bytes.slice(12, 16));
    if (refused) return refused;
  } else {
    const special = V6_BLOCKS.find((b) => inBlock(bytes, b));
    if (special) return { public: false, address, category: special.category };
    if (!inBlock(bytes, GLOBAL_UNICAST)) return { public: false, address, category: 'not global unicast' };
    if (inBlock(bytes, SIX_TO_FOUR)) {
      const refused = embedded(bytes.slice(2, 6));
      if (refused) return refused;
    }
    if (inBlock(bytes, TEREDO)) {
      const server = embedded(bytes.slice(4, 8));
      if (server) return server;
      const client = embedded(bytes.slice(12, 16).map((b) => b ^ 0xff));
      if (client) return client;
    }
  }
  return zoned ? { public: false, address, category: 'scoped (zone id)' } : { public: true, address };
}

/** A human-readable sentence for a refused address (shown in 400s and in the delivery log). */
export function describeRefusal(classification: Extract<AddressClassification, { public: false }>): string {
  const { address, category, via } = classification;
  if (category === 'invalid') return `${address} is not an IP address`;
  const embeds = via ? `, embedding ${via}` : '';
  return `${address} is not a public address (${category}${embeds}); webhook destinations must be public`;
}

/** Resolves a host name to every address it has; injectable so tests never touch real DNS. */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>;

export const defaultResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true });

export type UrlCheckResult = { ok: true } | { ok: false; reason: string };

/**
 * The loopback address itself (127.0.0.0/8 or ::1), not an address that merely embeds one
 * (64:ff9b::7f00:1 goes to a NAT64 gateway; ::ffff:127.0.0.1 is refused as IPv4-mapped).
 */
export function isLoopback(classification: AddressClassification): boolean {
  return !classification.public && classification.category === 'loopback' && classification.via === undefined;
}

/** A loopback IP literal, or a name that is loopback by definition (RFC 6761: localhost). */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && isLoopback(classifyAddress(host));
}

/**
 * Whether a delivery may connect to this address: a public one always; a loopback one too under
 * OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK, the narrow development allowance that lets a receiver on the
 * same machine (npm run webhooks:listen) be tried while every private, link-local or metadata
 * address stays refused.
 */
export function isPermittedAddress(classification: AddressClassification, allowLoopback: boolean): boolean {
  return classification.public || (allowLoopback && isLoopback(classification));
}

export interface UrlCheckOptions {
  /** OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS (D6): development and tests only. */
  allowPrivateNetworks: boolean;
  /** OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: loopback receivers only (http allowed for them), development only. */
  allowLoopback?: boolean;
  resolve?: Resolver;
  /** Registration answers an API request, so a hanging resolver must not hold it. */
  resolveTimeoutMs?: number;
}

const MAX_URL_LENGTH = 2000;

/** Strips the brackets WHATWG URL keeps around an IPv6 literal host. */
export function urlHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * The registration-time check of D6 (the answer becomes a 400 `reason`): https only (http only
 * when private networks are allowed, or to a loopback receiver under the loopback allowance), no
 * credentials in the URL, and every address the host resolves to must be public (or loopback,
 * under that allowance). One private answer among public ones is enough
 * to refuse, because the connection could be made to any of them.
 *
 * When private networks are allowed the host is not resolved at all: there is nothing left to
 * enforce, and development URLs often name hosts only the worker's network knows.
 */
export async function checkUrlForRegistration(rawUrl: string, options: UrlCheckOptions): Promise<UrlCheckResult> {
  if (rawUrl.length > MAX_URL_LENGTH) return { ok: false, reason: `URL must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { ok: false, reason: 'URL is not a valid absolute URL' };
  }
  const host = urlHost(url);
  const allowLoopback = options.allowLoopback ?? false;
  // http only where nothing is left to protect in transit: private networks allowed (tests), or
  // a receiver on this very machine under the loopback allowance.
  const httpAllowed = options.allowPrivateNetworks || (allowLoopback && isLoopbackHost(host));
  if (url.protocol !== 'https:' && !(httpAllowed && url.protocol === 'http:')) {
    if (options.allowPrivateNetworks) return { ok: false, reason: 'URL must use https or http' };
    return { ok: false, reason: allowLoopback ? 'URL must use https (http only for a loopback receiver such as http://127.0.0.1:<port>/)' : 'URL must use https' };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'URL must not contain a user name or password' };
  }
  if (host === '') return { ok: false, reason: 'URL must name a host' };
  if (options.allowPrivateNetworks) return { ok: true };

  if (isIP(host) !== 0) {
    const classification = classifyAddress(host);
    if (isPermittedAddress(classification, allowLoopback)) return { ok: true };
    return { ok: false, reason: describeRefusal(classification as Extract<AddressClassification, { public: false }>) };
  }
  // RFC 6761: these names are loopback by definition, whatever a resolver says. Under the
  // loopback allowance they are accepted here and checked again on the address each delivery
  // actually connects to.
  if (host === 'localhost' || host.endsWith('.localhost')) {
    if (allowLoopback) return { ok: true };
    return { ok: false, reason: `${host} is a loopback name, and webhook destinations must be public` };
  }

  const resolve = options.resolve ?? defaultResolver;
  const timeoutMs = options.resolveTimeoutMs ?? 5000;
  let addresses: readonly LookupAddress[];
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    addresses = await Promise.race([
      resolve(host),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      }),
    ]);
  } catch {
    return { ok: false, reason: `host ${host} could not be resolved` };
  } finally {
    clearTimeout(timer);
  }
  if (addresses.length === 0) return { ok: false, reason: `host ${host} could not be resolved` };
  for (const { address } of addresses) {
    const classification = classifyAddress(address);
    if (!classification.public && !isPermittedAddress(classification, allowLoopback)) return { ok: false, reason: `host ${host} resolves to ${describeRefusal(classification)}` };
  }
  return { ok: true };
}

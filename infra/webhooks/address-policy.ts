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
import ipaddr from 'ipaddr.js';
import { withDeadline } from '../runtime/deadline';

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

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

interface Block {
  range: Range;
  category: AddressCategory;
}

// Parsing and prefix matching are ipaddr.js's (a maintained library); the policy of which block
// is what, and what an embedded IPv4 address means, is ours and stays here as tables.
const block = (cidr: string, category: AddressCategory): Block => ({ range: ipaddr.parseCIDR(cidr), category });

const V4_BLOCKS: readonly Block[] = [
  block('0.0.0.0/8', 'unspecified'),
  block('10.0.0.0/8', 'private'),
  block('100.64.0.0/10', 'shared (CGNAT)'),
  block('127.0.0.0/8', 'loopback'),
  block('169.254.0.0/16', 'link-local'),
  block('172.16.0.0/12', 'private'),
  block('192.0.0.0/24', 'protocol assignment'),
  block('192.0.2.0/24', 'documentation'),
  block('192.88.99.0/24', 'reserved'),
  block('192.168.0.0/16', 'private'),
  block('198.18.0.0/15', 'benchmarking'),
  block('198.51.100.0/24', 'documentation'),
  block('203.0.113.0/24', 'documentation'),
  block('224.0.0.0/4', 'multicast'),
  block('255.255.255.255/32', 'broadcast'),
  block('240.0.0.0/4', 'reserved'),
];

const V6_BLOCKS: readonly Block[] = [
  block('::/128', 'unspecified'),
  block('::1/128', 'loopback'),
  block('::ffff:0:0/96', 'IPv4-mapped'),
  block('::/96', 'IPv4-compatible'),
  block('64:ff9b:1::/48', 'NAT64 local-use'),
  block('100::/64', 'discard-only'),
  block('2001:2::/48', 'benchmarking'),
  block('2001:10::/28', 'protocol assignment'), // ORCHID (deprecated)
  block('2001:20::/28', 'protocol assignment'), // ORCHIDv2
  block('2001:db8::/32', 'documentation'),
  block('3fff::/20', 'documentation'),
  block('fc00::/7', 'unique-local'),
  block('fe80::/10', 'link-local'),
  block('fec0::/10', 'site-local'),
  block('ff00::/8', 'multicast'),
];

const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16');
const TEREDO = ipaddr.parseCIDR('2001::/32');

function inRange(address: ipaddr.IPv4 | ipaddr.IPv6, range: Range): boolean {
  return address.kind() === range[0].kind() && address.match(range);
}

function classifyV4(address: ipaddr.IPv4): AddressCategory | null {
  return V4_BLOCKS.find((b) => inRange(address, b.range))?.category ?? null;
}

/** The IPv4 address in four bytes of an IPv6 address. */
const v4At = (bytes: number[], offset: number) => ipaddr.fromByteArray(bytes.slice(offset, offset + 4)) as ipaddr.IPv4;

/**
 * `::127.0.0.1` is IPv4-compatible (::/96), but ipaddr.js reads any IPv6 text ending in a dotted
 * quad as IPv4-mapped (::ffff:0:0/96). Writing the quad as two hex groups first keeps the bytes
 * exactly as written, so the two categories stay apart.
 */
function dottedTailAsHex(address: string): string {
  const quad = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  if (!quad) return address;
  const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
  return `${address.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
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
  // isIP first: ipaddr.js also accepts the legacy IPv4 forms (octal, hex, fewer parts) that Node's
  // socket layer does not connect to as written, and that are never a receiver's address.
  const family = isIP(address);
  if (family === 0) return { public: false, address, category: 'invalid' };
  const parsed = ipaddr.parse(family === 6 ? dottedTailAsHex(address) : address);
  if (parsed.kind() === 'ipv4') {
    const category = classifyV4(parsed as ipaddr.IPv4);
    if (category) return { public: false, address, category };
    return zoned ? { public: false, address, category: 'scoped (zone id)' } : { public: true, address };
  }
  const v6 = parsed as ipaddr.IPv6;
  const bytes = v6.toByteArray();

  const embedded = (v4: ipaddr.IPv4): AddressClassification | null => {
    const category = classifyV4(v4);
    return category ? { public: false, address, category, via: v4.toString() } : null;
  };

  if (v6.match(NAT64_WELL_KNOWN)) {
    const refused = embedded(v4At(bytes, 12));
    if (refused) return refused;
  } else {
    const special = V6_BLOCKS.find((b) => inRange(v6, b.range));
    if (special) return { public: false, address, category: special.category };
    if (!v6.match(GLOBAL_UNICAST)) return { public: false, address, category: 'not global unicast' };
    if (v6.match(SIX_TO_FOUR)) {
      const refused = embedded(v4At(bytes, 2));
      if (refused) return refused;
    }
    if (v6.match(TEREDO)) {
      const server = embedded(v4At(bytes, 4));
      if (server) return server;
      const client = embedded(v4At(bytes.map((b) => b ^ 0xff), 12));
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
  try {
    addresses = await withDeadline(resolve(host), timeoutMs, `resolving ${host}`);
  } catch {
    return { ok: false, reason: `host ${host} could not be resolved` };
  }
  if (addresses.length === 0) return { ok: false, reason: `host ${host} could not be resolved` };
  for (const { address } of addresses) {
    const classification = classifyAddress(address);
    if (!classification.public && !isPermittedAddress(classification, allowLoopback)) return { ok: false, reason: `host ${host} resolves to ${describeRefusal(classification)}` };
  }
  return { ok: true };
}

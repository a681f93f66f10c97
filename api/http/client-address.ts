import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Request } from 'express';

/**
 * Section 8 counts the broad limit per client address. `req.ip` is what Express's `trust proxy`
 * setting (TRUST_PROXY_HOPS) makes of the connection and `X-Forwarded-For`: with no trusted hop
 * it is the peer itself, and a forwarded value only counts when a proxy of ours wrote it. Even
 * then the value must be an IP address: anything else (`not-an-ip`) counts as the connection it
 * came on, so a made-up string never opens a fresh bucket. An IPv6 client is counted per /64,
 * the block one subscriber gets, since one host can take any address in it.
 */
export function clientAddressKey(req: Request): string {
  const forwarded = req.ip ?? '';
  const address = isIP(forwarded) ? forwarded : (req.socket.remoteAddress ?? 'unknown');
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address); // an IPv4-mapped IPv6 address becomes the IPv4 address
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4).join(':');
  return `${prefix}::/64`;
}

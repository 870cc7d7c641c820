/**
 * Which IP addresses paywatch may connect to when it fetches a URL someone else supplied (directories,
 * providers, trust-check callers). Only globally routable unicast addresses pass; everything that reaches
 * the host itself, a private network, or a cloud metadata service is refused (SSRF defence, OWASP SSRF
 * prevention cheat sheet). Ranges come from ipaddr.js (IANA special-purpose registries, RFC 6890).
 */
import { BlockList, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Cloud metadata endpoints, refused even though a broader range rule already catches them. */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254']);

/** A node:net BlockList of one IPv6 prefix (Node parses every IPv6 spelling, `::1.2.3.4` included, as the kernel does). */
function ipv6Net(prefix: string, bits: number): BlockList {
  const list = new BlockList();
  list.addSubnet(prefix, bits, 'ipv6');
  return list;
}

/**
 * IPv6 ranges that carry an IPv4 address inside them, refused whatever they carry: a host or gateway that
 * translates them may deliver the packet to that IPv4 address (a private or loopback one included). Range names
 * follow ipaddr.js where it has one.
 */
const EMBEDDING: readonly [range: string, net: BlockList][] = [
  ['ipv4Compatible', ipv6Net('::', 96)], // RFC 4291 section 2.5.5.1 (deprecated); WHATWG URLs write [::127.0.0.1] as [::7f00:1]
  ['rfc6052', ipv6Net('64:ff9b::', 96)], // NAT64 well-known prefix, RFC 6052
  ['6to4', ipv6Net('2002::', 16)], // RFC 3056
  ['teredo', ipv6Net('2001::', 32)], // RFC 4380
];

/** `::` and `::1` lie inside `::/96` but keep their own ranges (unspecified, loopback). */
const UNSPECIFIED_OR_LOOPBACK = new BlockList();
UNSPECIFIED_OR_LOOPBACK.addAddress('::', 'ipv6');
UNSPECIFIED_OR_LOOPBACK.addAddress('::1', 'ipv6');

export interface AddressVerdict {
  allowed: boolean;
  /** The ipaddr.js range name ("unicast", "loopback", "private", "linkLocal", "uniqueLocal"…) or "invalid". */
  range: string;
  /** The address as checked (an IPv4-mapped IPv6 address is reduced to its IPv4 form). */
  address: string;
}

/**
 * Classifies one literal IP address (v4 or v6, no brackets).
 * Allowed: range "unicast" only, plus "loopback" when `allowLoopback` (tests and the demo only).
 * IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged by its IPv4 form; IPv4-compatible (::/96, other than :: and ::1),
 * NAT64 (64:ff9b::/96), 6to4 (2002::/16) and Teredo (2001::/32) addresses, which carry another address, are
 * refused whatever they carry (ranges "ipv4Compatible", "rfc6052", "6to4", "teredo").
 * @param ip a literal address such as "203.0.113.5" or "::1"; anything unparsable is refused as "invalid"
 */
export function checkAddress(ip: string, allowLoopback = false): AddressVerdict {
  if (!ipaddr.isValid(ip)) return { allowed: false, range: 'invalid', address: ip };
  // Judged on Node's reading first: ipaddr.js reads "::1.2.3.4" as the IPv4-mapped ::ffff:1.2.3.4.
  if (isIPv6(ip) && !UNSPECIFIED_OR_LOOPBACK.check(ip, 'ipv6')) {
    const embedding = EMBEDDING.find(([, net]) => net.check(ip, 'ipv6'));
    if (embedding) return { allowed: false, range: embedding[0], address: ip };
  }
  let addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  const address = addr.toString();
  if (METADATA.has(address)) return { allowed: false, range: 'metadata', address };
  const range = addr.range();
  const allowed = range === 'unicast' || (allowLoopback && range === 'loopback');
  return { allowed, range, address };
}

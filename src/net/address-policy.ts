/**
 * Which IP addresses paywatch may connect to when it fetches a URL someone else supplied (directories,
 * providers, trust-check callers). Only globally routable unicast addresses pass; everything that reaches
 * the host itself, a private network, or a cloud metadata service is refused (SSRF defence, OWASP SSRF
 * prevention cheat sheet). Ranges come from ipaddr.js (IANA special-purpose registries, RFC 6890).
 */
import ipaddr from 'ipaddr.js';

/** Cloud metadata endpoints, refused even though a broader range rule already catches them. */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254']);

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
 * IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged by its IPv4 form; NAT64, 6to4 and Teredo forms, which embed
 * another address, are refused with the other special ranges.
 * @param ip a literal address such as "203.0.113.5" or "::1"; anything unparsable is refused as "invalid"
 */
export function checkAddress(ip: string, allowLoopback = false): AddressVerdict {
  if (!ipaddr.isValid(ip)) return { allowed: false, range: 'invalid', address: ip };
  let addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  const address = addr.toString();
  if (METADATA.has(address)) return { allowed: false, range: 'metadata', address };
  const range = addr.range();
  const allowed = range === 'unicast' || (allowLoopback && range === 'loopback');
  return { allowed, range, address };
}

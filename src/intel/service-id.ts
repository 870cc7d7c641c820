/**
 * Identity of providers and services (docs/intelligence.md). The canonical form is documented in
 * docs/intelligence.md, "Service ids"; changing it changes every id, so it is versioned by that document.
 *
 * Canonical service string: `<METHOD> <normalised URL>` and, for an MCP tool, a line feed and the tool name.
 * Normalised URL (WHATWG URL parsing, then): scheme and host lower-case (IDN hosts in punycode), a trailing
 * dot on the host dropped, the scheme's default port dropped, the path kept as is (an empty path is "/"),
 * query parameters sorted by name then value and re-encoded as application/x-www-form-urlencoded,
 * the fragment dropped.
 */
import { createHash } from 'node:crypto';

/**
 * Normalises a URL to its canonical form (see the module comment).
 * @throws TypeError when `url` is not an absolute URL
 * @example normaliseUrl('HTTPS://Api.Example.com:443/x?b=2&a=1#f') === 'https://api.example.com/x?a=1&b=2'
 */
export function normaliseUrl(url: string): string {
  const u = new URL(url);
  u.hostname = u.hostname.replace(/\.$/, '');
  u.hash = '';
  const params = [...u.searchParams.entries()].sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  u.search = params.length ? new URLSearchParams(params).toString() : '';
  return u.href;
}

/**
 * The canonical string a service id is the hash of.
 * @param method HTTP method (any case; upper-cased)
 * @param url absolute URL of the paid endpoint
 * @param tool MCP tool name, or null/undefined for a plain HTTP resource
 */
export function canonicalService(method: string, url: string, tool?: string | null): string {
  const base = `${method.trim().toUpperCase()} ${normaliseUrl(url)}`;
  return tool ? `${base}\n${tool}` : base;
}

/**
 * `service_id`: sha256 hex (64 lower-case hex characters) of canonicalService(method, url, tool).
 * The same endpoint reached through two sources gets one id.
 * @throws TypeError when `url` is not an absolute URL
 */
export function serviceId(method: string, url: string, tool?: string | null): string {
  return createHash('sha256')
    .update(canonicalService(method, url, tool), 'utf8')
    .digest('hex');
}

/**
 * The provider of a URL: its origin's domain, lower-case host, the port kept only when it is not the
 * scheme's default (WHATWG `host`), no trailing dot.
 * @throws TypeError when `url` is not an absolute URL
 * @example providerDomain('https://API.example.com:443/x') === 'api.example.com'
 */
export function providerDomain(url: string): string {
  const u = new URL(url);
  u.hostname = u.hostname.replace(/\.$/, '');
  return u.host.toLowerCase();
}

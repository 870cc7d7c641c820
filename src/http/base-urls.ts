/**
 * The addresses paywatch advertises for its two listeners (OpenAPI servers, the manifest, the /api/status link,
 * the trust check's payment requirements): configured public URLs when set (behind a reverse proxy they differ
 * from the bound address); else, when a request is at hand, the scheme and host it was addressed to (what the
 * client could reach); else http://host:port of the bound address. An answer naming a URL taken from the request
 * is `Cache-Control: private` (cacheScope), so no shared cache hands one client's Host to another.
 */
import type { Config } from '../config.js';

const hostPart = (host: string) => (host.includes(':') ? `[${host}]` : host);
const trimmed = (url: string) => url.replace(/\/$/, '');

/** A Host value worth echoing: a DNS name, dotted quad or [IPv6], with an optional port; nothing else. */
const SANE_HOST = /^(?:[A-Za-z0-9][A-Za-z0-9-]{0,62}(?:\.[A-Za-z0-9-]{1,63})*\.?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** Where the manifest is served on the public listener (src/api/routes/manifest.ts); /api/status and MCP's get_status link it. */
export const MANIFEST_PATH = '/.well-known/paywatch.json';

/** The parts of a request the base URLs are taken from (Fastify's `protocol` and `host`, proxy-aware when trusted). */
export interface RequestAddress {
  protocol: string;
  host: string;
}

/** `{scheme, host}` of `req` when both are sane (http or https, a plain host of at most 260 characters), else null. */
function addressed(req: RequestAddress | undefined): { scheme: string; host: string } | null {
  if (!req || (req.protocol !== 'http' && req.protocol !== 'https') || req.host.length > 260 || !SANE_HOST.test(req.host)) return null;
  return { scheme: req.protocol, host: req.host };
}

/**
 * The public API's base URL, without a trailing slash: PAYWATCH_PUBLIC_URL; else the scheme and host `req` was
 * addressed to; else http://host:port.
 */
export function publicBaseUrl(config: Pick<Config, 'publicUrl' | 'host' | 'port'>, req?: RequestAddress): string {
  if (config.publicUrl) return trimmed(config.publicUrl);
  const a = addressed(req);
  return a ? `${a.scheme}://${a.host}` : `http://${hostPart(config.host)}:${config.port}`;
}

/**
 * The trust check's base URL, without a trailing slash: PAYWATCH_VERIFY_URL; else the host `req` was addressed to
 * (a request to the public listener) with the verify port; else http://host:verifyPort.
 */
export function verifyBaseUrl(config: Pick<Config, 'verifyUrl' | 'host' | 'verifyPort'>, req?: RequestAddress): string {
  if (config.verifyUrl) return trimmed(config.verifyUrl);
  const a = addressed(req);
  return a ? `${a.scheme}://${a.host.replace(/:\d+$/, '')}:${config.verifyPort}` : `http://${hostPart(config.host)}:${config.verifyPort}`;
}

/**
 * The Cache-Control scope of an answer that names base URLs, given the configured URLs it uses (publicUrl,
 * verifyUrl): `public` when all are configured, `private` when any is taken from the request's Host (a cache that
 * keys on something else than the Host it forwards must not serve that answer to other clients).
 */
export function cacheScope(...configured: (string | null)[]): 'public' | 'private' {
  return configured.every((u) => u !== null) ? 'public' : 'private';
}

/** The configured base URLs (no request): the OpenAPI documents' servers, or null to let them be relative. */
export function configuredBaseUrls(config: Pick<Config, 'publicUrl' | 'verifyUrl'>): { api: string | null; verify: string | null } {
  return { api: config.publicUrl && trimmed(config.publicUrl), verify: config.verifyUrl && trimmed(config.verifyUrl) };
}

/**
 * The configuration for a public listener running beside a trust-check listener in the same process (`start`,
 * `demo`): its trust-check address is the one that listener really has (the port the OS chose for
 * `--verify-port 0`, or a demo's free port), unless PAYWATCH_VERIFY_URL names the advertised one.
 * @param listening the port the trust-check listener is bound to
 */
export function withListeningVerifyPort<C extends Pick<Config, 'verifyUrl' | 'verifyPort'>>(config: C, listening: number): C {
  return config.verifyUrl ? config : { ...config, verifyPort: listening };
}

/**
 * The addresses paywatch advertises for its two listeners (OpenAPI servers, the manifest, the trust check's
 * payment requirements): configured public URLs when set (behind a reverse proxy they differ from the bound
 * address), else http://host:port.
 */
import type { Config } from '../config.js';

const hostPart = (host: string) => (host.includes(':') ? `[${host}]` : host);

/** The public API's base URL: PAYWATCH_PUBLIC_URL or http://host:port, without a trailing slash. */
export function publicBaseUrl(config: Pick<Config, 'publicUrl' | 'host' | 'port'>): string {
  return (config.publicUrl ?? `http://${hostPart(config.host)}:${config.port}`).replace(/\/$/, '');
}

/** The trust check's base URL: PAYWATCH_VERIFY_URL or http://host:verifyPort, without a trailing slash. */
export function verifyBaseUrl(config: Pick<Config, 'verifyUrl' | 'host' | 'verifyPort'>): string {
  return (config.verifyUrl ?? `http://${hostPart(config.host)}:${config.verifyPort}`).replace(/\/$/, '');
}

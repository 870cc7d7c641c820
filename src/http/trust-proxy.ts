/**
 * Which proxies a listener trusts (PAYWATCH_TRUST_PROXY) and the client address that follows from it: one rule for
 * Fastify's `req.ip` (./fastify.ts) and for the replay in front of it (./replay.ts).
 */
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { Config } from '../config.js';

/** Fastify's `trustProxy` option as paywatch gives it. */
export type TrustProxy = boolean | string | string[] | ((address: string, hop: number) => boolean);

/** proxy-addr's trust function for `hops` proxies: the socket's peer and the next hops-1 forwarders. */
function trustHops(hops: number) {
  return (_address: string, hop: number) => hop < hops;
}

/**
 * The listener's Fastify `trustProxy` option from PAYWATCH_TRUST_PROXY: behind a reverse proxy, req.ip is the
 * client X-Forwarded-For names, past the trusted hops only; rate limits and quotas key on it. A hop count trusts
 * that many proxies whatever their address (proxy-addr's rule; Fastify itself now refuses a bare number): safe
 * only when the listener is reachable through the proxy alone (docs/decisions.md).
 */
export function trustProxyOption(config: Pick<Config, 'trustProxy'>): TrustProxy {
  return typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy;
}

/**
 * How Fastify finds `req.ip` for a listener's `trustProxy` (fastify/lib/request.js), for code that runs before
 * Fastify (./replay.ts): the socket's peer, or the address X-Forwarded-For names past the trusted hops.
 * @returns a function of the raw request giving the client address ('' when the socket has none)
 */
export function clientAddressOf(trustProxy: TrustProxy | undefined): (req: IncomingMessage) => string {
  if (!trustProxy) return (req: IncomingMessage) => req.socket.remoteAddress ?? '';
  const trust =
    typeof trustProxy === 'function'
      ? trustProxy
      : trustProxy === true
        ? () => true
        : proxyAddr.compile(typeof trustProxy === 'string' ? trustProxy.split(',').map((s) => s.trim()) : trustProxy);
  return (req: IncomingMessage) => {
    const all = proxyAddr.all(req, trust);
    return all[all.length - 1] ?? '';
  };
}

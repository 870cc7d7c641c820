/**
 * An SSRF-safe HTTP(S) fetcher for URLs that come from outside (directories, providers, trust-check callers).
 *
 * How it closes the usual gaps:
 * - The URL is parsed by the WHATWG parser first, so odd IPv4 spellings (http://2130706433/, http://0x7f.1/,
 *   http://0177.0.0.1/) are already normalised to dotted form when the address rule runs.
 * - A host name is resolved here, EVERY answer is checked (src/net/address-policy.ts), and the socket is then
 *   opened through an undici Agent whose `connect.lookup` returns only those checked answers: the name is never
 *   resolved a second time, so there is no DNS-rebinding window.
 * - Redirects are followed by hand (at most `maxRedirects`), and every hop goes through the same checks.
 * - One time budget covers every hop and the body; the body is cut at `maxBytes`.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { Agent, request, type Dispatcher } from 'undici';
import type { RawResponse } from '../domain/intel.js';
import { checkAddress } from './address-policy.js';
import { FetchError, FetchFailed, FetchRefused, FetchTimeout, FetchTooLarge } from './errors.js';
import { USER_AGENT } from './user-agent.js';

export { FetchError, FetchFailed, FetchRefused, FetchTimeout, FetchTooLarge } from './errors.js';

/** Resolves a host name to all of its addresses (the shape of `dns.promises.lookup(name, {all: true})`). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export interface SafeFetchOptions {
  /** HTTP method; default GET. */
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Total budget in milliseconds for all hops and the body; default 10,000. */
  timeoutMs?: number;
  /** Body cap in bytes; default 1 MiB. A longer body throws FetchTooLarge (carrying the first maxBytes). */
  maxBytes?: number;
  /** Redirects followed; default 3. With 0 a 3xx answer is returned as is. */
  maxRedirects?: number;
  /** Allow loopback addresses (127/8, ::1). For tests and the local demo only, never in production. */
  allowLoopback?: boolean;
  /** User-Agent header; default `paywatch/<version> (+url)`. */
  userAgent?: string;
  /** Name resolver; default the system resolver. Tests pass one to map a name to a chosen address. */
  resolve?: Resolver;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BYTES = 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 3;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Checks a URL before any connection: scheme, credentials, and every address its host stands for.
 * @returns the parsed URL and the checked addresses to connect to (one entry for an IP literal)
 * @throws FetchFailed("bad_url"|"dns"), FetchRefused("scheme"|"credentials"|"address")
 */
export async function vetUrl(
  raw: string,
  opts: Pick<SafeFetchOptions, 'allowLoopback' | 'resolve'> = {},
): Promise<{ url: URL; addresses: LookupAddress[] }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchFailed(`not a valid URL: ${JSON.stringify(raw.slice(0, 200))}`, 'bad_url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchRefused(`scheme ${url.protocol.replace(':', '')} is not allowed (http and https only)`, 'scheme');
  }
  if (url.username || url.password) throw new FetchRefused('URLs with credentials are not fetched', 'credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: LookupAddress[];
  const literal = isIpLiteral(host);
  if (literal) {
    addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await (opts.resolve ?? systemResolver)(host);
    } catch {
      throw new FetchFailed(`host ${host} did not resolve`, 'dns');
    }
    if (addresses.length === 0) throw new FetchFailed(`host ${host} did not resolve`, 'dns');
  }
  for (const a of addresses) {
    if (!checkAddress(a.address, opts.allowLoopback).allowed) throw new FetchRefused(refusedAddress(host, literal), 'address');
  }
  return { url, addresses };
}

/**
 * The message for a refused address. It never names what a host name resolved to, nor its range: callers' answers
 * (trust check 400s, probe snapshots, source freshness) are public, and a resolved address would make the
 * service an oracle for internal DNS. A literal address is the caller's own text and is named.
 */
function refusedAddress(host: string, literal: boolean): string {
  const rule = 'only public unicast addresses are fetched';
  return literal ? `address ${host} is not allowed (${rule})` : `host ${host} resolves to an address that is not allowed (${rule})`;
}

function isIpLiteral(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}

/** An undici Agent that connects only to the given, already checked addresses. */
function pinnedAgent(addresses: LookupAddress[]): Agent {
  return new Agent({
    connect: {
      // Node's net.connect asks with {all: true} when it races address families; answer in both shapes.
      lookup: ((_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
        if (options?.all) cb(null, addresses);
        else cb(null, addresses[0].address, addresses[0].family);
      }) as never,
    },
    connections: 1,
    pipelining: 0,
  });
}

/** Flattens undici's header record: repeated headers are joined with ", " (RFC 9110 §5.3), names lower-case. */
function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/**
 * Fetches a URL from outside without ever connecting to a private, loopback (unless allowed), link-local,
 * unique-local, CGNAT, multicast, unspecified or metadata address, and without following a redirect to one.
 *
 * @param url absolute http(s) URL
 * @param opts see SafeFetchOptions (timeoutMs: milliseconds, total; maxBytes: bytes)
 * @returns the final response: status, lower-case headers, body (≤ maxBytes bytes, `truncated: false`), final URL
 * @throws FetchRefused (nothing sent), FetchTimeout, FetchTooLarge (with the cut response), FetchFailed
 * @example const r = await safeFetch('https://api.example.com/paid', { timeoutMs: 5000 })
 */
export async function safeFetch(url: string, opts: SafeFetchOptions = {}): Promise<RawResponse> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let method = (opts.method ?? 'GET').toUpperCase();
  let body = opts.body;
  let current = url;
  try {
    for (let hop = 0; ; hop++) {
      const { url: target, addresses } = await withAbort(vetUrl(current, opts), controller.signal, timeoutMs);
      const agent = pinnedAgent(addresses);
      try {
        const res = await send(target, method, body, opts, agent, controller.signal);
        // Destroying the body (cap, redirect, abort) emits an error; it is handled where it matters, not here.
        res.body.on('error', () => {});
        const headers = flattenHeaders(res.headers);
        if (REDIRECTS.has(res.statusCode) && maxRedirects > 0) {
          res.body.destroy();
          if (hop >= maxRedirects) throw new FetchFailed(`more than ${maxRedirects} redirects from ${url}`, 'too_many_redirects');
          const location = headers.location;
          if (!location) throw new FetchFailed(`redirect ${res.statusCode} without Location at ${target.href}`, 'bad_redirect');
          try {
            current = new URL(location, target).href;
          } catch {
            throw new FetchFailed(`redirect to an invalid Location at ${target.href}`, 'bad_redirect');
          }
          // RFC 9110 §15.4: 303 always, and 301/302 after POST in practice, continue as GET without a body.
          if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
            method = 'GET';
            body = undefined;
          }
          continue;
        }
        const declared = Number(headers['content-length']);
        const { bytes, truncated } = await readCapped(res.body, maxBytes);
        const raw: RawResponse = { status: res.statusCode, headers, body: bytes, truncated, url: target.href };
        if (truncated || (Number.isFinite(declared) && declared > maxBytes)) {
          throw new FetchTooLarge(`response body from ${target.host} exceeds ${maxBytes} bytes`, { ...raw, truncated: true });
        }
        return raw;
      } finally {
        agent.destroy().catch(() => {});
      }
    }
  } catch (err) {
    if (err instanceof FetchError) throw err;
    if (controller.signal.aborted) throw new FetchTimeout(`no complete answer from ${safeHost(current)} within ${timeoutMs} ms`);
    throw new FetchFailed(`could not reach ${safeHost(current)}: ${describe(err)}`, 'connect');
  } finally {
    clearTimeout(timer);
  }
}

async function send(
  target: URL,
  method: string,
  body: string | Uint8Array | undefined,
  opts: SafeFetchOptions,
  dispatcher: Dispatcher,
  signal: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  const headers: Record<string, string> = { 'user-agent': opts.userAgent ?? USER_AGENT, ...lowerKeys(opts.headers ?? {}) };
  return request(target, { method: method as Dispatcher.HttpMethod, headers, body, dispatcher, signal, maxRedirections: 0 } as never);
}

function lowerKeys(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}

/** Reads at most `maxBytes` (+1 to detect overflow) and stops the stream past the cap. */
async function readCapped(
  stream: AsyncIterable<Uint8Array> & { destroy(): void },
  maxBytes: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = Buffer.from(chunk);
    if (size + buf.length > maxBytes) {
      chunks.push(buf.subarray(0, maxBytes - size));
      stream.destroy();
      return { bytes: new Uint8Array(Buffer.concat(chunks)), truncated: true };
    }
    chunks.push(buf);
    size += buf.length;
  }
  return { bytes: new Uint8Array(Buffer.concat(chunks)), truncated: false };
}

/** Races a promise (DNS resolution) against the shared budget. */
function withAbort<T>(p: Promise<T>, signal: AbortSignal, timeoutMs: number): Promise<T> {
  if (signal.aborted) return Promise.reject(new FetchTimeout(`time budget of ${timeoutMs} ms spent`));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new FetchTimeout(`time budget of ${timeoutMs} ms spent resolving the host`));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function safeHost(u: string): string {
  try {
    return new URL(u).host;
  } catch {
    return 'the host';
  }
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  return e?.cause?.code ?? e?.code ?? e?.cause?.message ?? e?.message ?? 'unknown error';
}

/**
 * Sending JSON text a route rendered (or remembered) itself, bypassing the serializer: the text must match the
 * route's response schema, which the API tests check against the OpenAPI document.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { POLL_INTERVAL_SECONDS } from '../domain/filters.js';
import { COMPRESS_THRESHOLD, compressText, negotiateEncoding, type Encoding } from './compression.js';
import { noteSent } from './replay.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Cache-Control of a public read: reusable for the polling interval (docs/api-chain.md), by any cache. */
export const FRESH = `public, max-age=${POLL_INTERVAL_SECONDS}`;

/** Sends `text` (a JSON document) as the reply body with the JSON content type. */
export function sendJsonText(reply: FastifyReply, text: string): FastifyReply {
  // `as never`: the typed reply expects the schema's object type; the text is that object, already rendered.
  return reply.type(JSON_TYPE).send(text as never);
}

/** A JSON document rendered once to be sent many times, with its weak ETag and its compressed forms. */
export interface RenderedJson {
  text: string;
  /** `W/"<base64 SHA-1 of text>"`: what @fastify/etag (registered weak in app.ts) would compute for the same body. */
  etag: string;
  /**
   * The body per encoding, made on the first request that asks for it: `identity` is the text's UTF-8 bytes, the
   * others the text compressed (about a tenth of it).
   */
  encoded: Partial<Record<Encoding | 'identity', Buffer>>;
}

/**
 * Renders `value` as JSON text and computes its ETag once, for replies a route remembers (a page of the list, a
 * detail). @fastify/etag hashes every body it is handed without an ETag: for a remembered 40–65 kB page that was
 * ~30–45 µs of SHA-1 on every request, a large part of the list's cost per request.
 */
export function renderJson(value: unknown): RenderedJson {
  const text = JSON.stringify(value);
  return { text, etag: `W/"${createHash('sha1').update(text).digest('base64')}"`, encoded: {} };
}

// Not in the store's cache (src/store/cache.ts): rendering is an HTTP concern, and keyed by the answer it dies with it.
const renderings = new WeakMap<object, RenderedJson>();

/**
 * The rendering of a remembered answer, made once per `key` object: a reused answer (a remembered page, an intel
 * listing from the store's cache, src/store/cache.ts) is the same object on every request, so its JSON text and ETag are computed once.
 * @param build the document to render for `key` (default `key` itself); called on the first request only
 */
export function renderedOnce(key: object, build: () => unknown = () => key): RenderedJson {
  let r = renderings.get(key);
  if (r === undefined) {
    r = renderJson(build());
    renderings.set(key, r);
  }
  return r;
}

/**
 * Sends a rendered document with its ETag (@fastify/etag keeps a set ETag and still answers If-None-Match with
 * 304), compressed once per encoding when the client accepts br or gzip: compressing a remembered 90 kB page
 * on every request would cost more than everything else the request does (bench/results/compression.md).
 */
export function sendRenderedJson(reply: FastifyReply, rendered: RenderedJson): FastifyReply {
  reply.header('etag', rendered.etag);
  const compressible = rendered.text.length >= COMPRESS_THRESHOLD;
  const encoding = compressible ? negotiateEncoding(reply.request.headers['accept-encoding']) : null;
  if (encoding === null) {
    // Bytes made once: a string body is UTF-8 encoded (and measured for Content-Length) on every send.
    let bytes = rendered.encoded.identity;
    if (bytes === undefined) {
      bytes = Buffer.from(rendered.text);
      rendered.encoded.identity = bytes;
    }
    noteSent(reply, 'identity', bytes, compressible);
    return reply.type(JSON_TYPE).send(bytes as never);
  }
  let body = rendered.encoded[encoding];
  if (body === undefined) {
    body = compressText(rendered.text, encoding);
    rendered.encoded[encoding] = body;
  }
  noteSent(reply, encoding, body, compressible);
  // With Content-Encoding set, @fastify/compress leaves the body as it is (Vary comes from ./compression.ts).
  return reply
    .type(JSON_TYPE)
    .header('content-encoding', encoding)
    .send(body as never);
}

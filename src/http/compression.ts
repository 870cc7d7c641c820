/**
 * Compression of answers (@fastify/compress) on every listener: br or gzip by the client's Accept-Encoding, for
 * bodies of 1 kB or more, streams included (the CSV export is compressed as it is written, so its memory bound
 * holds). Brotli runs at quality 4: its default, 11, is meant for static files and costs dynamic answers tens of
 * milliseconds. ETags are weak (src/http/reply.ts, app.ts) so one validator serves every encoding of an answer, as
 * RFC 9110 section 8.8.1 allows for semantically equivalent representations.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/** Bodies smaller than this many bytes are sent as they are. */
export const COMPRESS_THRESHOLD = 1024;

/** The encodings answers are compressed with, in the server's order of preference. */
export const ENCODINGS = ['br', 'gzip'] as const;
export type Encoding = (typeof ENCODINGS)[number];

const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

/**
 * The encoding to answer a request with, by its Accept-Encoding header (q-values honoured, as @fastify/compress
 * negotiates: `*` and `x-gzip` count as gzip), or null for identity.
 */
export function negotiateEncoding(acceptEncoding: string | undefined): Encoding | null {
  if (!acceptEncoding) return null;
  const chosen = negotiate(acceptEncoding.toLowerCase().replace(/\*|x-gzip/g, 'gzip'), [...ENCODINGS]);
  return chosen === 'br' || chosen === 'gzip' ? chosen : null;
}

/**
 * The encoding a remembered MCP tool answer is sent with (src/mcp/jsonrpc.ts), by the client's Accept-Encoding
 * (q-values honoured; `*` counts): `br` or `deflate`, the two a stream can be spliced in from a part compressed once
 * (./spliced-brotli.ts, ./spliced-deflate.ts), br first; null for any other.
 */
export function negotiateSpliced(acceptEncoding: string | undefined): 'br' | 'deflate' | null {
  if (!acceptEncoding) return null;
  const chosen = negotiate(acceptEncoding.toLowerCase().replace(/\*/g, 'br'), ['br', 'deflate']);
  return chosen === 'br' || chosen === 'deflate' ? chosen : null;
}

/** `text` compressed with `encoding` at the settings the listeners use (remembered answers are compressed once). */
export function compressText(text: string, encoding: Encoding): Buffer {
  return encoding === 'br' ? brotliCompressSync(text, BROTLI) : gzipSync(text);
}

/** Content types answered compressed when the client accepts it (what the listeners send: JSON and the CSV export). */
const VARIES = /^(application\/json|text\/csv)\b/i;

/**
 * Registers compression on `app` (before its routes), and `Vary: Accept-Encoding` on every JSON or CSV answer,
 * identity and 304 included: a shared cache must key every representation of a compressible answer by the
 * client's Accept-Encoding (RFC 9110 section 12.5.5), while @fastify/compress only marks the answers it compressed.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  // Callback style: an async hook costs a promise and a microtask turn on every request.
  app.addHook('onSend', (_req, reply, payload, done) => {
    const vary = String(reply.getHeader('vary') ?? '');
    if (VARIES.test(String(reply.getHeader('content-type') ?? '')) && !/(^|,)\s*accept-encoding\s*(,|$)/i.test(vary)) {
      reply.header('vary', vary ? `${vary}, accept-encoding` : 'accept-encoding');
    }
    done(null, payload);
  });
  await app.register(compress, {
    encodings: [...ENCODINGS],
    threshold: COMPRESS_THRESHOLD,
    brotliOptions: BROTLI,
    // Request bodies (signed intake) are verified on exactly the bytes sent: never inflate them.
    globalDecompression: false,
  });
}

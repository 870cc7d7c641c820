/**
 * Compression of answers (@fastify/compress) on every listener: br or gzip by the client's Accept-Encoding, for
 * bodies of 1 kB or more, streams included (the CSV export is compressed as it is written, so its memory bound
 * holds). Brotli runs at quality 4: its default, 11, is meant for static files and costs dynamic answers tens of
 * milliseconds. ETags are weak (src/api/reply.ts, app.ts) so one validator serves every encoding of an answer, as
 * RFC 9110 section 8.8.1 allows for semantically equivalent representations.
 */
import { constants } from 'node:zlib';
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/** Bodies smaller than this many bytes are sent as they are. */
export const COMPRESS_THRESHOLD = 1024;

/** Registers compression on `app` (before its routes). */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    encodings: ['br', 'gzip'],
    threshold: COMPRESS_THRESHOLD,
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
    // Request bodies (signed intake) are verified on exactly the bytes sent: never inflate them.
    globalDecompression: false,
  });
}

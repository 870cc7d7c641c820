/**
 * The explorer (web/, built by `npm run build` into dist/web) on the public listener: hashed files under /assets/
 * with a year of immutable caching, and index.html, revalidated on every load (`no-cache`), for each page path of
 * the single-page app. Any other path keeps the listener's JSON 404, so /api/* answers never turn into a page. The
 * page gets a Content-Security-Policy that allows scripts from this origin only and network calls to this origin
 * and the trust-check listener.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { NotFound } from '../domain/errors.js';
import { verifyBaseUrl } from '../http/base-urls.js';

/** dist/web, from src/api (development) and dist/api (compiled) alike. */
export const WEB_ROOT = fileURLToPath(new URL('../../dist/web/', import.meta.url));

/** The single-page app's page paths (its router's routes); each answers index.html. */
export const PAGE_PATHS = [
  '/',
  '/transactions',
  '/tx/:hash',
  '/wallet/:address',
  '/providers',
  '/providers/:domain',
  '/service/:id',
  '/check',
] as const;

/** Cache-Control of hashed build files: their name changes with their content. */
export const IMMUTABLE_ASSET = 'public, max-age=31536000, immutable';

/** The page's Content-Security-Policy, allowing network calls to `verifyOrigin` too. */
function contentSecurityPolicy(verifyOrigin: string | null): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self'${verifyOrigin ? ` ${verifyOrigin}` : ''}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/**
 * Registers the explorer's routes on `app` (the public listener's public scope). When dist/web has not been built,
 * the page paths answer 404 `{error}` saying so.
 * @param root the built explorer (tests may point elsewhere)
 */
export async function registerExplorer(app: FastifyInstance, ctx: AppContext, root = WEB_ROOT): Promise<void> {
  const indexFile = `${root}index.html`;
  const html = existsSync(indexFile) ? readFileSync(indexFile, 'utf8') : null;
  if (existsSync(`${root}assets`)) {
    await app.register(fastifyStatic, {
      root: `${root}assets`,
      prefix: '/assets/',
      index: false,
      cacheControl: false,
      etag: true,
      lastModified: false,
      setHeaders: (res) => res.setHeader('cache-control', IMMUTABLE_ASSET),
    });
  }
  const page = async (req: FastifyRequest, reply: FastifyReply) => {
    if (html === null) throw new NotFound('the explorer is not built here: `npm run build` builds web/ into dist/web');
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', contentSecurityPolicy(originOf(verifyBaseUrl(ctx.config, req))))
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .send(html);
  };
  for (const path of PAGE_PATHS) app.get(path, { schema: { hide: true } }, page);
}

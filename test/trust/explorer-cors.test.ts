/**
 * The trust-check listener answers CORS to the explorer's origin alone, and only for POST /v1/keys and /v1/check:
 * the configured public URL's origin, else the request's host with the public listener's port.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildVerifyApp } from '../../src/trust/app.js';
import { loadConfig } from '../../src/config.js';
import { apiFixture, type ApiFixture } from '../api/helpers.js';

const preflight = (app: FastifyInstance, url: string, origin: string, host = '127.0.0.1:8081', method = 'POST') =>
  app.inject({
    method: 'OPTIONS',
    url,
    headers: { origin, host, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' },
  });

describe('CORS of the trust-check listener for the explorer page', () => {
  let f: ApiFixture;
  let open: FastifyInstance;
  let configured: FastifyInstance;
  beforeAll(async () => {
    f = await apiFixture('sqlite', []);
    open = await buildVerifyApp(
      { store: f.store, config: loadConfig({ db: f.db.url, port: '8080' }, {}), components: new Map() },
      { logger: false },
    );
    configured = await buildVerifyApp(
      {
        store: f.store,
        config: loadConfig({ db: f.db.url, port: '8080' }, { PAYWATCH_PUBLIC_URL: 'https://paywatch.example/' }),
        components: new Map(),
      },
      { logger: false },
    );
  }, 120_000);
  afterAll(async () => {
    await open?.close();
    await configured?.close();
    await f?.close();
  });

  it('grants the key and check calls to the page origin (request host, public port)', async () => {
    for (const url of ['/v1/keys', '/v1/check']) {
      const r = await preflight(open, url, 'http://127.0.0.1:8080');
      expect(r.statusCode, url).toBe(204);
      expect(r.headers['access-control-allow-origin'], url).toBe('http://127.0.0.1:8080');
      expect(String(r.headers['access-control-allow-headers']).toLowerCase(), url).toContain('authorization');
    }
    const key = await open.inject({
      method: 'POST',
      url: '/v1/keys',
      headers: { origin: 'http://127.0.0.1:8080', host: '127.0.0.1:8081' },
    });
    expect(key.statusCode).toBe(201);
    expect(key.headers['access-control-allow-origin']).toBe('http://127.0.0.1:8080');
  });

  it('grants nothing to other origins, other routes or other methods', async () => {
    for (const [url, origin, method] of [
      ['/v1/check', 'https://elsewhere.example', 'POST'],
      ['/v1/check', 'http://127.0.0.1:9999', 'POST'],
      ['/v1/check', 'http://evil.example:8080', 'POST'],
      ['/v1/openapi.json', 'http://127.0.0.1:8080', 'GET'],
      ['/v1/keys', 'http://127.0.0.1:8080', 'DELETE'],
    ]) {
      const r = await preflight(open, url, origin, '127.0.0.1:8081', method);
      expect(r.headers['access-control-allow-origin'], `${url} ${origin} ${method}`).toBeUndefined();
      expect([404, 405], `${url} ${origin}`).toContain(r.statusCode);
    }
    const other = await open.inject({
      method: 'POST',
      url: '/v1/keys',
      headers: { origin: 'https://elsewhere.example', host: '127.0.0.1:8081' },
    });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('follows PAYWATCH_PUBLIC_URL when it is configured', async () => {
    expect((await preflight(configured, '/v1/check', 'https://paywatch.example')).headers['access-control-allow-origin']).toBe(
      'https://paywatch.example',
    );
    expect((await preflight(configured, '/v1/check', 'http://127.0.0.1:8080')).headers['access-control-allow-origin']).toBeUndefined();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPaidServices, type PaidServices } from '../../src/demo/paid-services/index.js';
import { startBadServers, type BadServers } from '../helpers/bad-servers.js';
import { readEvidence, verifyEvidence } from '../../src/intel/evidence.js';
import { probeService, Prober, retryAfterMs, type ProbeResult, type ProbeTarget } from '../../src/intel/probe/index.js';
import { serviceId } from '../../src/intel/service-id.js';
import { USER_AGENT } from '../../src/net/user-agent.js';

describe('probeService', () => {
  let bad: BadServers;
  let ps: PaidServices;
  beforeAll(async () => {
    bad = await startBadServers();
    ps = await startPaidServices();
  });
  afterAll(async () => {
    await bad?.stop();
    await ps?.stop();
  });
  const get = (url: string): ProbeTarget => ({ method: 'GET', url });

  it('records a 402 with offers as payment_required, with evidence that verifies and restores', async () => {
    const svc = ps.services.find((s) => s.name === 'x402-v2-weather')!;
    const { snapshot, evidence } = await probeService(svc, { allowLoopback: true });
    expect(snapshot.outcome).toBe('payment_required');
    expect(snapshot.http_status).toBe(402);
    expect(snapshot.service_id).toBe(serviceId('GET', svc.url));
    expect(snapshot.snapshot_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(snapshot.latency_ms).toBeGreaterThanOrEqual(0);
    expect(Number.isNaN(Date.parse(snapshot.checked_at))).toBe(false);
    expect(snapshot.error).toBeNull();
    expect(snapshot.offers).toHaveLength(2);
    expect(evidence).not.toBeNull();
    expect(snapshot.evidence_hash).toBe(evidence!.sha256);
    expect(verifyEvidence(evidence!.bytes, snapshot.evidence_hash!)).toBe(true);
    const raw = readEvidence(evidence!.bytes);
    expect(raw.status).toBe(402);
    expect(raw.headers['payment-required']).toBeTruthy();
    // Any edit to the archived bytes is detected.
    const tampered = Buffer.from(evidence!.bytes);
    tampered[tampered.length - 5] ^= 0x01;
    expect(verifyEvidence(tampered, snapshot.evidence_hash!)).toBe(false);
    expect(verifyEvidence(evidence!.bytes, 'not-a-hash')).toBe(false);
  });

  it('records each real protocol as payment_required', async () => {
    for (const svc of ps.services) {
      const { snapshot } = await probeService(svc, { allowLoopback: true });
      expect([svc.name, snapshot.outcome, snapshot.offers.length > 0]).toEqual([svc.name, 'payment_required', true]);
    }
  });

  it('records a 402 turned 404 as not_found, and a 2xx as ok_without_payment', async () => {
    const svc = ps.services.find((s) => s.name === 'x402-v1-joke')!;
    ps.setStatus(svc.name, 404);
    try {
      const { snapshot, evidence } = await probeService(svc, { allowLoopback: true });
      expect(snapshot).toMatchObject({ outcome: 'not_found', http_status: 404, offers: [], error: 'HTTP 404' });
      expect(evidence).not.toBeNull();
    } finally {
      ps.setStatus(svc.name, null);
    }
    const ok = await probeService(get(`${bad.origin}/free`), { allowLoopback: true });
    expect(ok.snapshot).toMatchObject({ outcome: 'ok_without_payment', http_status: 200, error: null });
  });

  it.each([
    ['/malformed', 'invalid_challenge', 402],
    ['/malformed-mpp', 'invalid_challenge', 402],
    ['/slow?ms=3000', 'timeout', null],
    ['/oversized?bytes=300000', 'too_large', 200],
    ['/rate-limited', 'error', 429],
  ])('records %s as %s, never a crash', async (path, outcome, status) => {
    const { snapshot, evidence } = await probeService(get(`${bad.origin}${path}`), {
      allowLoopback: true,
      timeoutMs: 300,
      maxBytes: 100_000,
    });
    expect(snapshot.outcome).toBe(outcome);
    expect(snapshot.http_status).toBe(status);
    expect(snapshot.error).toBeTruthy();
    expect(snapshot.offers).toEqual([]);
    expect(evidence === null).toBe(status === null);
  });

  it('records a redirect to a private address as refused, and a name resolving to loopback as refused', async () => {
    const redirect = await probeService(get(`${bad.origin}/redirect?to=${encodeURIComponent('http://10.0.0.7/paid')}`), {
      allowLoopback: true,
    });
    expect(redirect.snapshot).toMatchObject({ outcome: 'refused', http_status: null, evidence_hash: null, latency_ms: null });
    const before = bad.hits.get('/free') ?? 0;
    const local = await probeService(get(`http://localhost:${new URL(bad.origin).port}/free`));
    expect(local.snapshot.outcome).toBe('refused');
    const viaResolver = await probeService(get(`http://paid.example:${new URL(bad.origin).port}/free`), {
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(viaResolver.snapshot.outcome).toBe('refused');
    // Snapshots are public (/api/intelligence/history): what the name resolved to is not recorded.
    expect(viaResolver.snapshot.error).toBe(
      'host paid.example resolves to an address that is not allowed (only public unicast addresses are fetched)',
    );
    expect(bad.hits.get('/free') ?? 0).toBe(before);
  });

  it('records a closed port as unreachable', async () => {
    const { snapshot } = await probeService(get('http://127.0.0.1:1/x'), { allowLoopback: true });
    expect(snapshot.outcome).toBe('unreachable');
  });
});

describe('Prober', () => {
  let bad: BadServers;
  let bad2: BadServers;
  beforeAll(async () => {
    bad = await startBadServers();
    bad2 = await startBadServers();
  });
  afterAll(async () => {
    await bad?.stop();
    await bad2?.stop();
  });

  it('never sends more than one request at a time to a host, yet probes hosts in parallel', async () => {
    bad.reset();
    bad2.reset();
    const seen: ProbeResult[] = [];
    const prober = new Prober({ allowLoopback: true, concurrency: 8, onSnapshot: (_svc, r) => void seen.push(r) });
    const services = Array.from({ length: 12 }, (_, i) => [
      { method: 'GET', url: `${bad.origin}/inflight?ms=30&i=${i}` },
      { method: 'GET', url: `${bad2.origin}/inflight?ms=30&i=${i}` },
    ]).flat();
    const results = await prober.probeAll(services);
    expect(results).toHaveLength(24);
    expect(seen).toHaveLength(24);
    expect(results.every((r) => r.snapshot.outcome === 'ok_without_payment')).toBe(true);
    expect(bad.hits.get('/inflight')).toBe(12);
    expect(bad.maxInFlight()).toBe(1);
    expect(bad2.maxInFlight()).toBe(1);
  });

  it('bounds overall concurrency across hosts', async () => {
    // Three host names that all resolve to the same server: per-host queues are separate, but the server counts
    // every request in flight, so it sees the overall bound.
    bad.reset();
    const prober = new Prober({ concurrency: 2, allowLoopback: true, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    const port = new URL(bad.origin).port;
    const services = ['a.test', 'b.test', 'c.test'].flatMap((h) =>
      [0, 1, 2].map((i) => ({ method: 'GET', url: `http://${h}:${port}/inflight?ms=40&i=${i}` })),
    );
    const results = await prober.probeAll(services);
    expect(results.every((r) => r.snapshot.outcome === 'ok_without_payment')).toBe(true);
    expect(bad.hits.get('/inflight')).toBe(9);
    expect(bad.maxInFlight()).toBeLessThanOrEqual(2);
  });

  it('backs off a host after 429, honouring Retry-After, before probing it again', async () => {
    bad.reset();
    const prober = new Prober({ allowLoopback: true, maxBackoffMs: 5000 });
    const before = Date.now();
    const first = prober.probe({ method: 'GET', url: `${bad.origin}/rate-limited?retry=1` });
    const second = prober.probe({ method: 'GET', url: `${bad.origin}/free` });
    await first;
    const until = prober.backoffUntil(bad.origin)!;
    expect(until).toBeGreaterThanOrEqual(before + 1000);
    await second;
    // The queued request reached the server only once the backoff had passed.
    expect(bad.hitTimes.get('/free')![0]).toBeGreaterThanOrEqual(until);
    expect(prober.backoffUntil(bad.origin)).toBeNull();
  });

  it('doubles the pause per consecutive 503 without Retry-After, capped', async () => {
    const prober = new Prober({ allowLoopback: true, baseBackoffMs: 10_000, maxBackoffMs: 15_000 });
    const before = Date.now();
    await prober.probe({ method: 'GET', url: `${bad2.origin}/rate-limited?status=503&retry=none` });
    const first = prober.backoffUntil(bad2.origin)!;
    expect(first).toBeGreaterThanOrEqual(before + 10_000);
    expect(first).toBeLessThanOrEqual(Date.now() + 10_000);
    expect(prober.backoffUntil('http://elsewhere.example/')).toBeNull();
  });

  it('keeps probing when onSnapshot throws', async () => {
    const errors: unknown[] = [];
    const prober = new Prober({
      allowLoopback: true,
      onSnapshot: () => {
        throw new Error('store down');
      },
      onError: (_svc, e) => void errors.push(e),
    });
    const results = await prober.probeAll([
      { method: 'GET', url: `${bad.origin}/a` },
      { method: 'GET', url: `${bad.origin}/b` },
    ]);
    expect(results).toHaveLength(2);
    expect(errors).toHaveLength(2);
  });

  it('runs rounds on a schedule over the current list, and stops', async () => {
    bad.reset();
    let lists = 0;
    const prober = new Prober({ allowLoopback: true });
    const schedule = prober.every(() => {
      lists++;
      return [{ method: 'GET', url: `${bad.origin}/round` }];
    }, 3_600_000);
    await schedule.idle();
    schedule.stop();
    expect(lists).toBe(1);
    expect(bad.hits.get('/round')).toBe(1);
  });

  it('parses Retry-After as seconds or an HTTP-date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs('soon')).toBeNull();
    expect(retryAfterMs(undefined)).toBeNull();
  });

  it('identifies itself', () => {
    expect(USER_AGENT).toMatch(/^paywatch\/\d+\.\d+\.\d+/);
  });
});

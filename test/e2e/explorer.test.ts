/**
 * The explorer in a real browser (Debian's chromium driven by playwright-core) against a real `paywatch demo`:
 * anvil activity collected into a store, the demo's paid services probed twice (a payTo change), the trust-check
 * listener, and a token whose symbol is markup. Every page loads without a console error; what the pages show
 * equals the API; hostile chain text stays text; bad page URLs and a rate limit give clear messages; axe-core finds
 * no WCAG 2 A/AA violation (contrast included); a phone-width screen does not scroll sideways and the keyboard
 * reaches the navigation. Screenshots go to docs/img/.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/chain/anvil.js';
import { startCli, type CliResult } from './cli.js';
import { createHostileToken, type HostileToken } from './hostile-token.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];
const HOSTILE = '<img src=x onerror=alert(1)>';
const IMG_DIR = fileURLToPath(new URL('../../docs/img/', import.meta.url));
/** axe-core's browser build, evaluated in the page (page.evaluate is not subject to the page's CSP). */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

type Row = { hash: string; protocol: string | null; asset: string | null; asset_contract: string | null; sender: string | null };

let demo: { child: ReturnType<typeof startCli>['child']; done: Promise<CliResult> };
let api: string;
let out = '';
let searchDomain: string;
let checkUrl: string;
let hostile: HostileToken;
let profile: string;
let browser: BrowserContext;
const consoleErrors: string[] = [];
const dialogs: string[] = [];

const json = async <T = any>(path: string): Promise<T> => (await fetch(`${api}${path}`)).json() as Promise<T>;

/** A new tab that records console errors, uncaught exceptions and dialogs (alert() would be one). */
async function tab(context = browser): Promise<Page> {
  const page = await context.newPage();
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(`${page.url()}: ${m.text()}`));
  page.on('pageerror', (e) => consoleErrors.push(`${page.url()}: ${e.message}`));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return page;
}

/** Opens `path` and waits until nothing is loading any more. */
async function open(page: Page, path: string): Promise<void> {
  await page.goto(`${api}${path}`);
  await page.waitForLoadState('networkidle');
  await page.waitForFunction(() => !document.body.innerText.includes('Loading'), undefined, { timeout: 30_000 });
}

beforeAll(async () => {
  const port = await freePort();
  demo = startCli(['demo', '--port', String(port), '--verify-port', String(await freePort())], { PAYWATCH_LOG_LEVEL: '' });
  demo.child.stdout!.on('data', (d) => (out += d));
  let exited = false;
  void demo.done.then(() => (exited = true));
  while (!out.includes('Press Ctrl-C') && !exited) await new Promise((r) => setTimeout(r, 100));
  if (exited) throw new Error(`paywatch demo exited: ${(await demo.done).stderr}`);
  api = `http://127.0.0.1:${port}`;
  const rpcUrl = /anvil \(Tempo mode, chain id 4217\) on (\S+)/.exec(out)![1];
  searchDomain = new URL(/mpp (http:\/\/\S+\/search)/.exec(out)![1]).host;
  checkUrl = /-d '\{"url":"([^"]+)"\}'/.exec(out)![1];
  hostile = await createHostileToken(rpcUrl, HOSTILE, 10n ** 6n);
  while ((await json(`/api/transactions?q=${hostile.transfer}`)).total !== 1) await new Promise((r) => setTimeout(r, 200));
  profile = mkdtempSync(join(tmpdir(), 'paywatch-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: ARGS,
    headless: true,
    viewport: { width: 1280, height: 900 },
  });
  mkdirSync(IMG_DIR, { recursive: true });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  if (demo) {
    demo.child.kill('SIGINT');
    await demo.done;
  }
});

describe('the explorer in chromium', () => {
  it('shows the overview with totals equal to /api/metrics and no console error', async () => {
    const page = await tab();
    await open(page, '/');
    await page.waitForSelector('.chart canvas');
    const cards = await page.$$eval('section.card', (els) =>
      els
        .filter((e) => e.querySelector('[data-metric="total"]'))
        .map((e) => ({
          api: e.querySelector('[data-metrics-api]')!.getAttribute('data-metrics-api')!,
          total: e.querySelector('[data-metric="total"]')!.textContent,
          nominal: e.querySelector('[data-metric="nominal"]')!.textContent,
          fees: e.querySelector('[data-metric="fees"]')!.textContent,
          rate: e.querySelector('[data-metric="rate"]')!.textContent,
        })),
    );
    expect(cards.map((c) => c.api)).toEqual([
      expect.stringMatching(/^\/api\/metrics\?since=\d+&until=\d+$/),
      expect.stringMatching(/^\/api\/metrics\?since=\d+&until=\d+$/),
    ]);
    for (const c of cards) {
      const m = await json(c.api);
      expect(m.total).toBeGreaterThan(10);
      expect(c).toEqual({
        api: c.api,
        total: m.total.toLocaleString('en'),
        nominal: m.nominal ?? 'unknown',
        fees: m.fees ?? 'unknown',
        rate: m.rate === null ? 'unknown' : `${(m.rate * 100).toFixed(1)} %`,
      });
    }
    await expect(page.textContent('main')).resolves.toMatch(/Checkpointblock \d+ \(0x[0-9a-f]{6}…[0-9a-f]{6}\), written 20\d\d-/);
    await expect(page.textContent('main')).resolves.toContain('not a complete feed');
    // The top services table shows as many rows as the ranking it links has (up to 10).
    const shown = Number(await (await page.waitForSelector('[data-top-services]')).getAttribute('data-top-services'));
    expect(shown).toBe((await json('/api/rankings/services?by=nominal&limit=10')).rows.length);
    await expect(page.textContent('main')).resolves.toContain('Top services by nominal received');
    await page.screenshot({ path: `${IMG_DIR}explorer-overview.png`, fullPage: true });
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it('filters the list by an asset and shows the same rows as the API, with an export link carrying the filters', async () => {
    const page = await tab();
    await open(page, '/transactions');
    await page.fill('input[name="asset"]', 'AlphaUSD');
    await page.selectOption('select[name="execution"]', 'success');
    await page.click('button[type="submit"]');
    await page.waitForURL(/asset=AlphaUSD/);
    await page.waitForSelector('[data-api*="asset=AlphaUSD"]');
    await page.waitForFunction(() => !document.body.innerText.includes('Loading'));
    const shown = await page.$$eval('tr[data-hash]', (rows) => rows.map((r) => r.getAttribute('data-hash')));
    const want = (await json('/api/transactions?asset=AlphaUSD&execution=success')).rows.map((r: Row) => r.hash);
    expect(want.length).toBeGreaterThan(1);
    expect(shown).toEqual(want);
    expect(await page.getAttribute('a[download]', 'href')).toBe('/api/export?asset=AlphaUSD&execution=success');
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it('pages with a fixed until, each page equal to the API page it links', async () => {
    const page = await tab();
    await open(page, '/transactions?limit=5');
    const first = await page.$$eval('tr[data-hash]', (rows) => rows.map((r) => r.getAttribute('data-hash')));
    await page.click('text=Older →');
    await page.waitForURL(/offset=5/);
    await page.waitForSelector('[data-api*="offset=5"]');
    await page.waitForFunction(() => !document.body.innerText.includes('Loading'));
    const url = new URL(page.url());
    const until = url.searchParams.get('until');
    expect(until).toMatch(/^\d+$/);
    const api = await page.getAttribute('[data-api^="/api/transactions"]', 'data-api');
    expect(api).toBe(`/api/transactions?until=${until}&limit=5&offset=5`);
    const second = await page.$$eval('tr[data-hash]', (rows) => rows.map((r) => r.getAttribute('data-hash')));
    expect(second).toEqual((await json(api!)).rows.map((r: Row) => r.hash));
    expect(second.filter((h) => first.includes(h))).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it('shows a transaction: integrity 2 with its stages, its legs, memo and evidence', async () => {
    const rows: Row[] = (await json('/api/transactions?limit=100')).rows;
    const mpp = rows.find((r) => r.protocol === 'mpp')!;
    const detail = await json(`/api/transactions/${mpp.hash}`);
    const page = await tab();
    await open(page, `/tx/${mpp.hash}`);
    expect(await page.textContent('[data-integrity-score]')).toBe('2');
    expect(await page.$$eval('.stage.pass', (s) => s.length)).toBe(2);
    const legs = await page.$$eval('.leg', (ls) => ls.map((l) => l.textContent));
    expect(legs).toHaveLength(detail.legs.length);
    for (const [i, g] of detail.legs.entries()) expect(legs[i]).toContain(`${g.amount} ${g.asset}`);
    await expect(page.textContent('main')).resolves.toContain(detail.evidence.block_hash);
    // Its payer and attribution, as the API serves them (method none when nothing is attributed).
    if (detail.payer) await expect(page.textContent('main')).resolves.toContain(detail.payer);
    expect(await page.getAttribute('[data-attribution]', 'data-attribution')).toBe(
      detail.attribution_method ?? detail.attribution?.method ?? 'none',
    );
    if (detail.attribution?.server_fingerprint)
      await expect(page.textContent('main')).resolves.toContain(detail.attribution.server_fingerprint);
    await page.screenshot({ path: `${IMG_DIR}explorer-transaction.png` });
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it("shows the provider's payTo change in its timeline, and a service's history with snapshot ids", async () => {
    const page = await tab();
    await open(page, '/providers');
    await page.click(`a[href="/providers/${encodeURIComponent(searchDomain)}"]`);
    await page.waitForSelector('[data-change="pay_to_changed"]');
    await page.waitForLoadState('networkidle');
    const change = (await json(`/api/intelligence/changes?domain=${encodeURIComponent(searchDomain)}`)).changes.find(
      (c: { kind: string }) => c.kind === 'pay_to_changed',
    );
    const item = await page.textContent('[data-change="pay_to_changed"]');
    expect(item).toContain(change.before.pay_to);
    expect(item).toContain(change.after.pay_to);
    await expect(page.textContent('main')).resolves.toContain('offers, not charges');
    // Payments received, as the API counts them, never called revenue.
    const profile = await json(`/api/providers/${encodeURIComponent(searchDomain)}`);
    const main = (await page.textContent('main')) ?? '';
    expect(main).toContain('Payments received (last 30 days)');
    expect(main).toContain(`Payments${profile.provider.payments.count}`);
    expect(main).toContain('Nominal received (listed USD)');
    expect(main.toLowerCase()).not.toContain('revenue');
    // The provider's payments per day: a chart over the series it links, with its exact values.
    const providerSeries = await page.getAttribute('[data-payments-chart] [data-api]', 'data-api');
    expect(providerSeries).toBe(`/api/metrics/series?bucket=day&execution=success&provider=${encodeURIComponent(searchDomain)}`);
    await page.waitForSelector('[data-payments-chart] .chart canvas');
    await page.screenshot({ path: `${IMG_DIR}explorer-provider.png` });
    await page.click(`.timeline a[href="/service/${change.service_id}"]`);
    await page.waitForLoadState('networkidle');
    await page.waitForSelector('.timeline li');
    await expect(page.textContent('main')).resolves.toContain(change.after_snapshot_id);
    // The service page: its payments received as /api/payments counts them, a per-day chart and the filtered list.
    await page.waitForSelector('h1:has-text("Service history")');
    await page.waitForSelector(`[data-payments-chart] [data-api$="service_id=${change.service_id}"]`);
    await page.waitForSelector('[data-payments-chart] .chart canvas');
    await page.waitForLoadState('networkidle');
    const paid = (await json(`/api/payments?service_id=${change.service_id}`)).payments;
    const service = (await page.textContent('main')) ?? '';
    expect(service).toContain('Payments received (last 30 days)');
    expect(service).toContain(`Payments${paid.count}`);
    expect(await page.$(`a[href="/transactions?service_id=${change.service_id}"]`)).not.toBeNull();
    const days = (await json(`/api/metrics/series?bucket=day&execution=success&service_id=${change.service_id}`)).buckets.filter(
      (b: { count: number }) => b.count > 0,
    );
    const shownDays = await page.$$eval('[data-payments-chart] tbody tr td:first-child', (r) => r.map((c) => c.textContent));
    const linked = await page.$$eval('[data-payments-chart] [data-api]', (r) => r.map((c) => c.getAttribute('data-api')));
    expect(shownDays.length, JSON.stringify({ shownDays, linked, url: page.url(), days })).toBe(days.length);
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it('checks a URL with a free key kept in the page and shows the verdict and its reasons', async () => {
    const page = await tab();
    await open(page, '/check');
    await page.fill('input[name="url"]', checkUrl);
    await page.click('button[type="submit"]');
    await page.waitForSelector('[data-verdict]', { timeout: 30_000 });
    expect(['pay', 'caution', 'do_not_pay']).toContain(await page.getAttribute('[data-verdict]', 'data-verdict'));
    expect(await page.$$eval('.reasons li', (l) => l.length)).toBeGreaterThan(2);
    const key = await page.evaluate(() => localStorage.getItem('paywatch.trust-check.key'));
    expect(key).toBeTruthy();
    // A second check reuses the kept key: no new key is issued.
    const issued: string[] = [];
    page.on('request', (r) => r.url().endsWith('/v1/keys') && issued.push(r.url()));
    await page.click('button[type="submit"]');
    await page.waitForSelector('[data-verdict]');
    expect(issued).toEqual([]);
    expect(await page.evaluate(() => localStorage.getItem('paywatch.trust-check.key'))).toBe(key);
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it('loads the wallet page with totals per asset, and keeps a markup symbol as text everywhere', async () => {
    const page = await tab();
    await open(page, `/tx/${hostile.transfer}`);
    await expect(page.textContent('main')).resolves.toContain(HOSTILE);
    expect(await page.$$('main img')).toHaveLength(0);
    await open(page, `/wallet/${hostile.from}`);
    await page.waitForSelector('tr[data-hash]');
    await expect(page.textContent('main')).resolves.toContain(HOSTILE);
    await expect(page.textContent('main')).resolves.toContain('Totals per asset');
    expect(await page.$$('main img')).toHaveLength(0);
    expect(dialogs).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it('says clearly when a page URL holds a malformed hash, address or service id', async () => {
    const page = await tab();
    for (const [path, message] of [
      ['/tx/0x123', 'is not a transaction hash'],
      ['/wallet/0xnothex', 'is not a wallet address'],
      ['/service/xyz', 'is not a service id'],
      [`/tx/0x${'ab'.repeat(32)}`, 'not recorded in this archive'],
    ]) {
      await page.goto(`${api}${path}`);
      await expect(page.waitForSelector('[role="alert"]')).resolves.toBeTruthy();
      expect(await page.textContent('[role="alert"]'), path).toContain(message);
    }
    await page.close();
    consoleErrors.length = 0; // the unrecorded hash's 404 is logged by the browser as a failed resource
  });

  it('meets WCAG 2 A and AA as axe-core checks them (text contrast included) on every page, wide and phone-width', async () => {
    const rows: Row[] = (await json('/api/transactions?limit=100')).rows;
    const page = await tab();
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 800 });
      for (const path of [
        '/',
        '/transactions',
        `/tx/${rows[0].hash}`,
        `/wallet/${hostile.from}`,
        '/providers',
        `/providers/${encodeURIComponent(searchDomain)}`,
        '/check',
      ]) {
        await open(page, path);
        await page.evaluate(`${AXE};0`);
        const violations = await page.evaluate(async () => {
          const r = await (
            window as unknown as {
              axe: { run: (d: Document, o: object) => Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> };
            }
          ).axe.run(document, { runOnly: ['wcag2a', 'wcag2aa'] });
          return r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
        });
        expect(violations, `${path} at ${width}px`).toEqual([]);
      }
    }
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it('fits a phone-width screen and is usable by keyboard', async () => {
    const phone = await tab();
    await phone.setViewportSize({ width: 375, height: 740 });
    for (const path of ['/', `/tx/${hostile.transfer}`, '/transactions', `/providers/${encodeURIComponent(searchDomain)}`, '/check']) {
      await open(phone, path);
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
    await open(phone, '/');
    await phone.keyboard.press('Tab');
    expect(await phone.evaluate(() => document.activeElement?.textContent)).toContain('Skip to content');
    await phone.keyboard.press('Tab');
    await phone.keyboard.press('Tab');
    await phone.keyboard.press('Tab');
    expect(await phone.evaluate(() => document.activeElement?.textContent)).toBe('Transactions');
    await phone.keyboard.press('Enter');
    await phone.waitForURL(/\/transactions$/);
    expect(consoleErrors).toEqual([]);
    await phone.close();
  });

  it('serves hashed assets for a year, index.html revalidated, and JSON 404 under /api', async () => {
    const html = await fetch(`${api}/tx/0x${'ab'.repeat(32)}`);
    expect(html.headers.get('cache-control')).toBe('no-cache');
    const text = await html.text();
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(text)![1];
    const js = await fetch(`${api}${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const missing = await fetch(`${api}/api/no-such-thing`);
    expect(missing.status).toBe(404);
    expect(Object.keys(await missing.json())).toEqual(['error']);
  });
});

describe('the explorer under a rate limit', () => {
  it('says "try again in N s" from Retry-After', async () => {
    const port = await freePort();
    const db = /store: (sqlite:\S+)/.exec(out)![1];
    const serve = startCli(['serve', '--db', db, '--port', String(port)], { PAYWATCH_RATE_LIMIT: '4' });
    try {
      while (
        !(await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        ))
      )
        await new Promise((r) => setTimeout(r, 100));
      const page = await tab();
      await page.goto(`http://127.0.0.1:${port}/`);
      await page.waitForSelector('[role="alert"]');
      expect(await page.textContent('[role="alert"]')).toMatch(/try again in \d+ s/);
      await page.close();
    } finally {
      serve.child.kill('SIGTERM');
      await serve.done;
      consoleErrors.length = 0; // the refused requests are logged by the browser as failed resources
    }
  });
});

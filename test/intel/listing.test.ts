import { describe, expect, it } from 'vitest';
import { summarizeProvider, SERVICES_IN_LISTING, type ListedService } from '../../src/intel/listing.js';
import { offer, USDC } from './store-fixtures.js';

const svc = (i: number, over: Partial<ListedService> = {}): ListedService => ({
  service_id: String(i).padStart(64, '0'),
  method: 'GET',
  url: `https://p.example/${i}`,
  tool: null,
  description: null,
  stale: false,
  last_good_check_at: `2026-01-0${i}T00:00:00.000Z`,
  failing_since: null,
  latest_check: { checked_at: `2026-01-0${i}T00:00:00.000Z`, outcome: 'payment_required', http_status: 402 },
  offers: [],
  ...over,
});

describe('summarizeProvider', () => {
  it('ranges prices per network and asset as integers, not strings, and leaves out unknown amounts', () => {
    const s = summarizeProvider([
      svc(1, {
        offers: [
          offer({ amount_atomic: '10000', amount: '0.01' }),
          offer({ network: 'eip155:8453', amount_atomic: '5', amount: '0.000005' }),
        ],
      }),
      svc(2, { offers: [offer({ amount_atomic: '9', amount: '0.000009' }), offer({ amount_atomic: null, amount: null })] }),
      svc(3, { offers: [offer({ protocol: 'mpp', x402_version: null, amount_atomic: '200000', amount: null, decimals: null })] }),
    ]);
    expect(s.prices).toEqual([
      {
        network: 'eip155:4217',
        asset: USDC,
        decimals: 6,
        min_amount_atomic: '9',
        max_amount_atomic: '200000',
        min_amount: '0.000009',
        max_amount: null,
      },
      {
        network: 'eip155:8453',
        asset: USDC,
        decimals: 6,
        min_amount_atomic: '5',
        max_amount_atomic: '5',
        min_amount: '0.000005',
        max_amount: '0.000005',
      },
    ]);
    expect(s).toMatchObject({ networks: ['eip155:4217', 'eip155:8453'], protocols: ['mpp', 'x402'], services_total: 3, stale: false });
  });

  it('takes the newest check, is stale only when every service is, and lists at most the first services', () => {
    const services = [1, 2, 3, 4, 5].map((i) => svc(i, { stale: i !== 4, latest_check: i === 5 ? null : svc(i).latest_check }));
    const s = summarizeProvider(services);
    expect(s.latest_check).toEqual({ checked_at: '2026-01-04T00:00:00.000Z', outcome: 'payment_required', http_status: 402 });
    expect(s.last_good_check_at).toBe('2026-01-05T00:00:00.000Z');
    expect(s).toMatchObject({ services_total: 5, services_stale: 4, stale: false });
    expect(s.services.map((x) => x.url)).toEqual(services.slice(0, SERVICES_IN_LISTING).map((x) => x.url));
    expect(summarizeProvider(services.map((x) => ({ ...x, stale: true }))).stale).toBe(true);
    expect(summarizeProvider([])).toMatchObject({ stale: false, latest_check: null, last_good_check_at: null, prices: [] });
  });
});

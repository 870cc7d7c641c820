/**
 * The payment filters of /api/transactions, /api/metrics, /api/metrics/series and /api/export (one schema each,
 * shared by HTTP and MCP): valid values are normalised, bad ones are refused naming the parameter.
 */
import { describe, expect, it } from 'vitest';
import { ExportQuery, FiltersQuery, SeriesQuery, TransactionsQuery } from '../../src/chain/schemas.js';

const ADDRESS = `0x${'Ab'.repeat(20)}`;
const SERVICE = 'a'.repeat(64);

describe.each([
  ['TransactionsQuery', TransactionsQuery],
  ['FiltersQuery', FiltersQuery],
  ['SeriesQuery', SeriesQuery],
  ['ExportQuery', ExportQuery],
] as const)('payment filters of %s', (_name, schema) => {
  it('accepts protocol, category, payer, recipient, service_id and provider, lower-casing addresses and domains', () => {
    const r = schema.parse({
      protocol: 'x402',
      category: 'payment',
      payer: ADDRESS,
      recipient: ADDRESS,
      service_id: SERVICE,
      provider: 'API.Example.com:8443',
    });
    expect(r).toMatchObject({
      protocol: 'x402',
      category: 'payment',
      payer: ADDRESS.toLowerCase(),
      recipient: ADDRESS.toLowerCase(),
      service_id: SERVICE,
      provider: 'api.example.com:8443',
    });
    expect(schema.parse({ protocol: 'unknown' })).toMatchObject({ protocol: 'unknown' });
  });

  it.each([
    ['protocol', 'stripe'],
    ['category', 'revenue'],
    ['payer', '0x1234'],
    ['recipient', `${ADDRESS}00`],
    ['payer', ''],
    ['service_id', 'A'.repeat(64)],
    ['service_id', 'svc-1'],
    ['provider', 'exa mple.com'],
    ['provider', 'example.com/path'],
  ])('refuses %s=%j, naming it', (param, value) => {
    const r = schema.safeParse({ [param]: value });
    expect(r.success).toBe(false);
    expect([...new Set(r.error?.issues.map((i) => i.path.join('.')))]).toEqual([param]);
  });
});

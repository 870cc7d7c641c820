/**
 * decodeEventStrict (src/chain/decode/event.ts) against viem's decodeEventLog with strict: true, the answer it
 * replaces: every log of the recorded anvil blocks, and random topics/data (fast-check) for every known event,
 * including missing topics, upper-case hex, empty, short and garbage data. Same result, or both throw.
 */
import fc from 'fast-check';
import { decodeEventLog, type AbiEvent, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { EVENTS_BY_TOPIC } from '../../src/chain/decode/abi.js';
import { decodeEventStrict } from '../../src/chain/decode/event.js';
import { loadChainFixtures } from '../fixtures/chain/load.js';
import { lowerAddresses } from './lower-addresses.js';

type Outcome = { ok: true; value: unknown } | { ok: false };
const outcome = (f: () => unknown): Outcome => {
  try {
    return { ok: true, value: f() };
  } catch {
    return { ok: false };
  }
};
// Addresses compared lower-cased: ours come lower-case on the fast path, viem checksums them.
const viem = (event: AbiEvent, topics: Hex[], data: Hex) =>
  outcome(() => lowerAddresses(decodeEventLog({ abi: [event], topics: topics as [Hex, ...Hex[]], data, strict: true })));
const ours = (event: AbiEvent, topic0: string, topics: Hex[], data: Hex) =>
  outcome(() => lowerAddresses(decodeEventStrict(event, topic0, topics, data)));

const candidates = [...EVENTS_BY_TOPIC].flatMap(([topic0, list]) => list.map(({ event }) => ({ topic0, event })));

describe('decodeEventStrict answers as viem decodeEventLog (strict)', () => {
  it('for every log of the recorded blocks and every candidate event of its topic0', () => {
    let decoded = 0;
    for (const f of loadChainFixtures().blocks)
      for (const r of f.receipts)
        for (const l of r?.logs ?? []) {
          const topic0 = String(l.topics[0]).toLowerCase();
          for (const { event } of EVENTS_BY_TOPIC.get(topic0) ?? []) {
            const expected = viem(event, l.topics, l.data);
            expect(ours(event, topic0, l.topics, l.data)).toEqual(expected);
            if (expected.ok) decoded++;
          }
        }
    expect(decoded).toBeGreaterThan(50);
  });

  it('for random topics and data against every known event', () => {
    const word = fc.tuple(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.boolean()).map(([b, up]) => {
      const h = Buffer.from(b).toString('hex');
      return `0x${up ? h.toUpperCase() : h}` as Hex;
    });
    const data = fc.oneof(
      fc.constant('0x' as Hex),
      fc.array(word, { maxLength: 8 }).map((ws) => `0x${ws.map((w) => w.slice(2)).join('')}` as Hex),
      fc.uint8Array({ maxLength: 100 }).map((b) => `0x${Buffer.from(b).toString('hex')}` as Hex),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...candidates),
        fc.array(word, { maxLength: 4 }),
        data,
        fc.boolean(),
        ({ topic0, event }, rest, d, upper) => {
          const topics = [(upper ? topic0.toUpperCase().replace('0X', '0x') : topic0) as Hex, ...rest];
          expect(ours(event, topic0, topics, d)).toEqual(viem(event, topics, d));
        },
      ),
      { numRuns: 3000 },
    );
  });
});

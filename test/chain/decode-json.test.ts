/** transactionDetail and plain (src/chain/decode/json.ts): shapes kept member for member, in order. */
import { describe, expect, it } from 'vitest';
import { plain, transactionDetail } from '../../src/chain/decode/json.js';

describe('transactionDetail / plain', () => {
  const raw =
    '{"nonce":"0x10","from":"0xAbCdEf0000000000000000000000000000000001","__proto__":{"gas":"0x2"},"calls":[{"value":"0x0","to":"0x20C0000000000000000000000000000000000001"}],"input":"0xAB"}';

  it('converts quantities, lower-cases addresses, keeps other strings and the member order', () => {
    const d = transactionDetail(JSON.parse(raw));
    expect(JSON.stringify(d)).toBe(
      '{"nonce":"16","from":"0xabcdef0000000000000000000000000000000001","__proto__":{"gas":"2"},"calls":[{"value":"0","to":"0x20c0000000000000000000000000000000000001"}],"input":"0xAB"}',
    );
  });

  it('keeps a node-supplied "__proto__" member as a member, never as the prototype', () => {
    for (const d of [transactionDetail(JSON.parse(raw)), plain(JSON.parse(raw)) as Record<string, unknown>]) {
      expect(Object.getPrototypeOf(d)).toBe(Object.prototype);
      expect(Object.keys(d)).toContain('__proto__');
    }
  });

  it('plain turns bigints into decimal strings, recursively', () => {
    expect(plain({ a: [1n, { b: 2n }], c: '0xAbCdEf0000000000000000000000000000000001' })).toEqual({
      a: ['1', { b: '2' }],
      c: '0xabcdef0000000000000000000000000000000001',
    });
  });
});

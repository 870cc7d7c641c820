/**
 * The token list: the Uniswap token-list schema decides what is a list, the built-in list equals Tempo's public
 * list for chain 4217 (the recorded copy in ../shared/real-tempo), and look-alike symbols are caught.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_TOKEN_LIST, TokenList, TokenListError } from '../../src/domain/token-list.js';
import { nominalOf } from '../../src/domain/listing.js';
import { localTokenList, localTokenListJson } from '../../src/demo/token-list.js';

const REAL = fileURLToPath(new URL('../../../shared/real-tempo/tokenlist-4217.json', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'paywatch-tokenlist-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('TokenList', () => {
  it('reads Tempo mainnet\u2019s public list, and the built-in default lists exactly its tokens', () => {
    const real = TokenList.read(REAL);
    expect(real.contracts()).toEqual(DEFAULT_TOKEN_LIST.contracts());
    for (const t of real.tokens.values()) expect(DEFAULT_TOKEN_LIST.tokens.get(t.address)).toEqual(t);
    expect(real.contractsForSymbol('USDC.e')).toEqual(['0x20c000000000000000000000b9537d11c60e8b50']);
    expect(real.isListed('0x20C0000000000000000000000000000000000000')).toBe(true);
    expect(real.isListed('0x20c0000000000000000000000000000000000001')).toBe(false);
    expect(real.isListed(null)).toBeNull();
  });

  it.each([
    ['not JSON', '{"name":', /is not JSON/],
    [
      'no tokens member',
      JSON.stringify({ name: 'x', timestamp: '2026-01-01T00:00:00Z', version: { major: 1, minor: 0, patch: 0 } }),
      /not a valid token list: \/ must have required property 'tokens'/,
    ],
    [
      'a bad address',
      JSON.stringify({ ...localTokenListJson([]), tokens: [{ chainId: 4217, address: '0x20c0', symbol: 'X', name: 'X', decimals: 6 }] }),
      /not a valid token list: \/tokens\/0\/address/,
    ],
    [
      'a list name over 30 characters',
      JSON.stringify({ ...localTokenListJson([]), name: 'x'.repeat(31) }),
      /\/name must NOT have more than 30 characters/,
    ],
    [
      'a symbol with spaces',
      JSON.stringify({
        ...localTokenListJson([]),
        tokens: [{ chainId: 4217, address: `0x${'1'.repeat(40)}`, symbol: 'A B', name: 'X', decimals: 6 }],
      }),
      /\/tokens\/0\/symbol/,
    ],
  ])('refuses %s with a one-line error naming the file', (_what, text, message) => {
    const p = file('bad.json', text);
    expect(() => TokenList.read(p)).toThrow(TokenListError);
    expect(() => TokenList.read(p)).toThrow(message);
    try {
      TokenList.read(p);
    } catch (e) {
      expect((e as Error).message).toContain(p);
      expect((e as Error).message).not.toContain('\n');
    }
  });

  it('says so when the file cannot be read', () => {
    expect(() => TokenList.read(join(dir, 'missing.json'))).toThrow(/cannot read token list .*missing\.json: ENOENT/);
  });

  it('keeps only chain 4217\u2019s tokens', () => {
    const json = localTokenListJson([{ address: `0x${'2'.repeat(40)}`, symbol: 'A', name: 'A' }]);
    json.tokens.push({ ...json.tokens[0], chainId: 1, address: `0x${'3'.repeat(40)}` } as never);
    expect(TokenList.from(json, 'mixed').contracts()).toEqual([`0x${'2'.repeat(40)}`]);
  });

  it.each([
    ['AlphaUSD', 'AlphaUSD'],
    ['\u0410lph\u0430USD', 'AlphaUSD'], // Cyrillic А and а
    ['ALPHA-USD', 'AlphaUSD'],
    ['\uff21lphaUSD', 'AlphaUSD'], // fullwidth A
  ])('notes %s on an unlisted contract as imitating %s', (symbol, imitates) => {
    const list = localTokenList();
    expect(list.imitated(symbol, `0x${'9'.repeat(40)}`)?.symbol).toBe(imitates);
  });

  it('notes USDC as imitating USDC.e, never a listed contract, nor an unrelated symbol', () => {
    expect(DEFAULT_TOKEN_LIST.imitated('USDC', `0x${'9'.repeat(40)}`)?.symbol).toBe('USDC.e');
    expect(DEFAULT_TOKEN_LIST.imitated('USDC.e', '0x20c000000000000000000000b9537d11c60e8b50')).toBeNull();
    expect(DEFAULT_TOKEN_LIST.imitated('PWEUR', `0x${'9'.repeat(40)}`)).toBeNull();
    expect(DEFAULT_TOKEN_LIST.imitated(null, `0x${'9'.repeat(40)}`)).toBeNull();
  });
});

describe('nominalOf', () => {
  it('counts only listed parts, exactly; null when none is listed (unknown, not zero)', () => {
    const pathUsd = '0x20c0000000000000000000000000000000000000';
    const fake = `0x${'9'.repeat(40)}`;
    expect(
      nominalOf(
        [
          { asset_contract: pathUsd, amount: '0.1' },
          { asset_contract: fake, amount: '1000000000000' },
          { asset_contract: pathUsd, amount: '0.2' },
        ],
        DEFAULT_TOKEN_LIST,
      ),
    ).toBe('0.3');
    expect(nominalOf([{ asset_contract: fake, amount: '5' }], DEFAULT_TOKEN_LIST)).toBeNull();
    expect(nominalOf(null, DEFAULT_TOKEN_LIST)).toBeNull();
  });
});

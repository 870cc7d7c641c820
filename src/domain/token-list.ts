/**
 * The listed tokens: the only contracts whose amounts paywatch counts as dollars. Anyone can create a TIP-20
 * through the factory with any symbol and `currency()` "USD" (domain notes, "TIP-20 tokens": "Symbols can be ambiguous"), so
 * what the chain says about a token never makes it a dollar on its own: the contract must also be on a token list
 * in the Uniswap token-list format (https://tokenlists.org, schema from `@uniswap/token-lists`).
 *
 * Everything that depends on the list is derived when answers are read (docs/decisions.md, "Listed tokens"):
 * the store keeps contracts and atomic or decimal amounts, so a changed list changes `nominal`, `asset_listed`
 * and symbol matching from the next start on, without collecting the chain again.
 */
import { PaywatchError, shortMessage } from './errors.js';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { schema } from '@uniswap/token-lists';
import { remove as removeConfusables } from 'confusables';
import { CHAIN_ID } from './observation.js';

/** One token of a list, as paywatch keeps it. */
export interface ListedToken {
  /** Lower-case 0x contract address. */
  address: string;
  symbol: string;
  name: string;
  decimals: number;
}

/** A token list could not be read or is not a valid token list; the message is one line for the operator. */
export class TokenListError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'token_list' });
  }
}

/**
 * The tokens of one list for chain 4217, with the lookups the read layer needs.
 * @example
 * const list = TokenList.from(json, 'tokenlist.json');
 * list.isListed('0x20c0000000000000000000000000000000000000') // true
 * list.contractsForSymbol('pathUSD') // ['0x20c0000000000000000000000000000000000000']
 */
export class TokenList {
  /** Listed tokens by lower-case address. */
  readonly tokens: ReadonlyMap<string, ListedToken>;
  /** sha256 (hex) of the sorted listed addresses: answers remembered under one list never serve another. */
  readonly id: string;
  private readonly bySymbol = new Map<string, string[]>();
  private readonly bySkeleton = new Map<string, ListedToken>();

  /**
   * @param name the list's `name`
   * @param tokens its tokens for chain 4217 (other chains' entries are left out by `from`)
   */
  constructor(
    readonly name: string,
    tokens: readonly ListedToken[],
  ) {
    this.tokens = new Map(tokens.map((t) => [t.address.toLowerCase(), { ...t, address: t.address.toLowerCase() }]));
    for (const t of this.tokens.values()) {
      this.bySymbol.set(t.symbol, [...(this.bySymbol.get(t.symbol) ?? []), t.address]);
      for (const s of skeletonsOf(t.symbol)) if (!this.bySkeleton.has(s)) this.bySkeleton.set(s, t);
    }
    this.id = createHash('sha256')
      .update([...this.tokens.keys()].sort().join(','))
      .digest('hex');
  }

  /**
   * Validates `json` against the Uniswap token-list JSON schema and keeps its chain-4217 tokens.
   * @param source where it came from, for the error message
   * @throws TokenListError naming the first schema violation
   */
  static from(json: unknown, source: string): TokenList {
    const validate = validator();
    if (!validate(json)) {
      const e = validate.errors?.[0];
      throw new TokenListError(
        `token list ${source} is not a valid token list: ${e ? `${e.instancePath || '/'} ${e.message}` : 'schema violation'}`,
      );
    }
    const list = json as { name: string; tokens: { chainId: number; address: string; symbol: string; name: string; decimals: number }[] };
    return new TokenList(
      list.name,
      list.tokens
        .filter((t) => t.chainId === CHAIN_ID)
        .map((t) => ({ address: t.address.toLowerCase(), symbol: t.symbol, name: t.name, decimals: t.decimals })),
    );
  }

  /**
   * Reads and validates a token-list file.
   * @throws TokenListError with a one-line message when the file cannot be read, is not JSON or not a token list
   */
  static read(path: string): TokenList {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new TokenListError(`cannot read token list ${path}: ${(e as NodeJS.ErrnoException).code ?? shortMessage(e)}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new TokenListError(`token list ${path} is not JSON: ${shortMessage(e)}`);
    }
    return TokenList.from(json, path);
  }

  /** true when `address` is listed, false when not, null when there is no address (no asset). */
  isListed(address: string | null | undefined): boolean | null {
    return address == null ? null : this.tokens.has(address.toLowerCase());
  }

  /** Listed contracts whose symbol is exactly `symbol` (case-sensitive, as symbols are served); [] when none. */
  contractsForSymbol(symbol: string): readonly string[] {
    return this.bySymbol.get(symbol) ?? [];
  }

  /** Every listed contract, sorted. */
  contracts(): string[] {
    return [...this.tokens.keys()].sort();
  }

  /**
   * The listed token an unlisted token's symbol imitates, or null: the same letters once Unicode look-alikes are
   * replaced (the `confusables` library), case and punctuation are ignored, and a bridged `.e` suffix is dropped.
   * A listed contract never imitates.
   * @param symbol the symbol the token's contract reports
   * @param address its contract
   */
  imitated(symbol: string | null, address: string): ListedToken | null {
    if (symbol == null || this.tokens.has(address.toLowerCase())) return null;
    for (const s of skeletonsOf(symbol)) {
      const hit = this.bySkeleton.get(s);
      if (hit) return hit;
    }
    return null;
  }
}

/** Comparable forms of a symbol: look-alikes replaced, NFKC, lower case, letters and digits only; with and without `.e`. */
function skeletonsOf(symbol: string): string[] {
  const base = removeConfusables(symbol.normalize('NFKC')).normalize('NFKC').toLowerCase();
  const plain = base.replace(/[^a-z0-9]/g, '');
  const unbridged = base.replace(/\.e$/, '').replace(/[^a-z0-9]/g, '');
  return [...new Set([plain, unbridged])].filter((s) => s.length > 0);
}

let compiled: ReturnType<Ajv['compile']> | null = null;
/**
 * The token-list schema compiled once (Ajv with formats: the schema uses date-time and uri), every rule kept but
 * the pattern on the list's own `name`, which Tempo's public list ("Tempo Mainnet (Presto)") does not meet and
 * which identifies no token (docs/decisions.md, "Listed tokens").
 */
function validator() {
  if (!compiled) {
    const ajv = new Ajv({ allErrors: false, strict: false });
    (addFormats as unknown as (a: Ajv) => void)(ajv);
    const relaxed = structuredClone(schema) as { properties: { name: { pattern?: string } } };
    delete relaxed.properties.name.pattern;
    compiled = ajv.compile(relaxed);
  }
  return compiled;
}

/**
 * Tempo mainnet's listed tokens, used when no list is configured. Source: Tempo's public token list for chain
 * 4217 (tempoxyz/tempo-apps `apps/tokenlist/data/4217/tokenlist.json`, version 1.1.3).
 */
export const DEFAULT_TOKEN_LIST = new TokenList('Tempo Mainnet (Presto), built in', [
  { address: '0x20c0000000000000000000000000000000000000', symbol: 'pathUSD', name: 'PathUSD', decimals: 6 },
  { address: '0x20c000000000000000000000b9537d11c60e8b50', symbol: 'USDC.e', name: 'Bridged USDC (Stargate)', decimals: 6 },
  { address: '0x20c0000000000000000000001621e21f71cf12fb', symbol: 'EURC.e', name: 'Bridged EURC (Stargate)', decimals: 6 },
  { address: '0x20c00000000000000000000014f22ca97301eb73', symbol: 'USDT0', name: 'USDT0', decimals: 6 },
  { address: '0x20c0000000000000000000003554d28269e0f3c2', symbol: 'frxUSD', name: 'Frax USD', decimals: 6 },
]);

/**
 * The bounds on chain data, in one table: token metadata read from token contracts, and what one transaction may
 * put into the store. Outside data is hostile (anyone can deploy a token whose `symbol()` answers 1 MiB, or emit
 * thousands of logs in one transaction), so each value is capped where it is read and each unit of work has a
 * budget. Every entry has its value, unit and reason; `CHAIN_DATA_LIMITS` is the list the limits module and the
 * docs show (docs/decoding.md, "Bounds").
 */

/** One bound: its value, the unit it is counted in, and why it is what it is. */
export interface ChainDataLimit {
  value: number;
  unit: 'bytes' | 'gas' | 'ms' | 'legs' | 'logs' | 'tokens' | 'characters' | 'attempts';
  reason: string;
}

export const CHAIN_DATA_LIMITS = {
  symbol_bytes: {
    value: 64,
    unit: 'bytes',
    reason:
      'a token symbol is a short ticker (Tempo mainnet list: at most 7 bytes); longer is unknown (null) with an oversized_metadata note, never stored',
  },
  currency_bytes: {
    value: 16,
    unit: 'bytes',
    reason: 'TIP-20 currency() is an ISO 4217-style code ("USD", "EUR"); longer is unknown, so the token is never valued',
  },
  metadata_gas: {
    value: 250_000,
    unit: 'gas',
    reason:
      'gas given to each symbol(), currency() and decimals() eth_call: ten times what a TIP-20 symbol() costs (23,270 on anvil, intrinsic gas included); also bounds what a call can return (about 280 KB of memory)',
  },
  metadata_timeout_ms: {
    value: 5_000,
    unit: 'ms',
    reason:
      'a metadata call within its gas budget takes milliseconds; a node that has not answered in this time is treated as not answering (the run is retried), never as an unknown token',
  },
  metadata_prefix_bytes: {
    value: 32,
    unit: 'bytes',
    reason: 'how much of a refused metadata value its forensics note shows, escaped to printable ASCII',
  },
  token_cache_entries: {
    value: 10_000,
    unit: 'tokens',
    reason: 'token metadata remembered per process (least recently used first out): anyone can create tokens without end',
  },
  logs_per_transaction: {
    value: 4_096,
    unit: 'logs',
    reason: 'logs of one receipt the decoder reads; beyond it only the fee is read (the last log) and the decode is partial',
  },
  legs_per_transaction: {
    value: 256,
    unit: 'legs',
    reason: 'value movements one observation keeps; beyond it legs, logs and calls are not stored and the decode is partial',
  },
  detail_bytes: {
    value: 262_144,
    unit: 'bytes',
    reason:
      'UTF-8 bytes of one stored detail (JSON); a larger one is stored reduced (no legs, logs or calls) with a cap_exceeded note; a normal transfer takes about 4 KB',
  },
  observation_bytes: {
    value: 393_216,
    unit: 'bytes',
    reason:
      'UTF-8 bytes one stored observation takes (row text, detail JSON, leg recipients): the detail cap plus room for 256 leg recipients; a block holding a larger one failed its budget (a cap above did not hold) and is quarantined',
  },
  block_bytes: {
    value: 67_108_864,
    unit: 'bytes',
    reason:
      "UTF-8 bytes one block's observations take once serialized (~170 capped observations, or ~16,000 normal transfers); beyond it the block fails its budget and is quarantined, so one block never holds the writer and the heap",
  },
  block_attempts: {
    value: 3,
    unit: 'attempts',
    reason:
      'turns in a row whose processing of one block fails (a throw, or a budget above exceeded) before the block is quarantined: a gap with its reason in /api/coverage and /api/status, and collection moves past it (`collect --retry-quarantined` tries it again); with the turn backoff about 4 s, so a transient fault passes first',
  },
  decode_note_addresses: {
    value: 3,
    unit: 'tokens',
    reason: 'token contracts named in a "decimals unknown" decode note before the rest are counted',
  },
} as const satisfies Record<string, ChainDataLimit>;

/** Name of one chain-data bound. */
export type ChainDataLimitName = keyof typeof CHAIN_DATA_LIMITS;

/** The value of bound `name`. */
export const limitOf = (name: ChainDataLimitName): number => CHAIN_DATA_LIMITS[name].value;

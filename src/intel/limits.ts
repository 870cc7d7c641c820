/**
 * The bounds on what directories and providers send, in one table: text a directory entry or a 402 answer carries
 * (descriptions, resource URLs, payTo, asset, `extra`), the methods a directory may name, and the notes kept about
 * refused entries. Outside data is hostile (a 200 KB description, a `DELETE` method aimed at someone else's API),
 * so each value is capped where it is read (./read-bounds.ts) and the prober sends only what cannot change state
 * (./probe/method-policy.ts). `INTEL_LIMITS` is the list docs/intelligence.md ("Bounds") shows.
 */

/** One bound: its value, the unit it is counted in, what happens beyond it, and why it is what it is. */
export interface IntelLimit {
  value: number;
  unit: 'characters' | 'bytes' | 'notes';
  /** What is done with a longer value. */
  beyond: 'cut' | 'unknown' | 'refused' | 'dropped';
  reason: string;
}

export const INTEL_LIMITS = {
  description_chars: {
    value: 1_000,
    unit: 'characters',
    beyond: 'cut',
    reason: 'a description is a line or two for a listing; the rest is cut with "…" so a 200 KB text never reaches a page or an answer',
  },
  url_chars: {
    value: 2_048,
    unit: 'characters',
    beyond: 'refused',
    reason:
      'the URL length browsers and CDNs take everywhere (the trust check refuses the same); a directory entry with a longer resource URL is refused with a directory_entry_invalid note, an offer naming one keeps a null resource',
  },
  address_chars: {
    value: 128,
    unit: 'characters',
    beyond: 'unknown',
    reason: 'payTo and asset are an address (42), a CAIP-10 account or a currency code; a longer one is unknown (null), never stored',
  },
  offer_text_chars: {
    value: 128,
    unit: 'characters',
    beyond: 'unknown',
    reason: 'scheme, payment method and network are short names ("exact", "tempo", "eip155:4217"); a longer one is unknown (null)',
  },
  extra_bytes: {
    value: 4_096,
    unit: 'bytes',
    beyond: 'unknown',
    reason:
      "UTF-8 bytes of an offer's `extra` as JSON: an EIP-712 domain or an MPP realm fits many times over; a larger one is unknown (null)",
  },
  tool_chars: {
    value: 256,
    unit: 'characters',
    beyond: 'refused',
    reason: 'an MCP tool name (MCP suggests at most 128); an entry with a longer one is refused with a directory_entry_invalid note',
  },
  notes_per_source: {
    value: 20,
    unit: 'notes',
    beyond: 'dropped',
    reason: 'refused entries named per source and pass in /api/intelligence/status; the rest are counted in the last note',
  },
  note_prefix_chars: {
    value: 64,
    unit: 'characters',
    beyond: 'cut',
    reason: 'how much of a refused value a note shows, escaped to printable ASCII',
  },
} as const satisfies Record<string, IntelLimit>;

/** Name of one intel bound. */
export type IntelLimitName = keyof typeof INTEL_LIMITS;

/** The value of bound `name`. */
export const intelLimit = (name: IntelLimitName): number => INTEL_LIMITS[name].value;

/**
 * Bounded readers for what directories and providers send (bounds in ./limits.ts): a directory entry's method,
 * URL, tool and description, and an offer's text members. A value beyond its bound is cut (descriptions), unknown
 * (null: payTo, asset, `extra`, short names) or, for what identifies an entry (method, URL, tool), the entry is
 * refused with a `directory_entry_invalid` note that names the reason and an escaped prefix of the value.
 * Text is kept well-formed (a lone UTF-16 surrogate becomes U+FFFD), so both store dialects keep what was read.
 */
import { escapePrefix } from '../domain/escape-prefix.js';
import type { DiscoveredService, Offer } from '../domain/intel.js';
import { intelLimit } from './limits.js';

/** Why something read from a source was not kept as it was sent. */
export interface SourceNote {
  /** `directory_entry_invalid`: an entry refused when read (never stored, never probed). */
  kind: 'directory_entry_invalid';
  /** What was wrong, with an escaped prefix of the value (printable ASCII). */
  detail: string;
  /** The entry's URL as read (escaped, cut), or null when it had none. */
  url: string | null;
}

/**
 * Methods a directory may name: RFC 9110 section 9 plus PATCH (RFC 5789). Any other string (or one that is not an
 * RFC 9110 token) is refused when read, so it is never stored as a service's method.
 */
export const KNOWN_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE']);

/** RFC 9110 section 5.6.2 token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A lone (unpaired) UTF-16 surrogate; with the u flag a pair is one code point and does not match. */
const LONE_SURROGATE = /\p{Cs}/u;

/** True when `s` holds no lone UTF-16 surrogate (it can be encoded as UTF-8 as it is). */
export const isWellFormedText = (s: string): boolean => !LONE_SURROGATE.test(s);

/** `s` with every lone surrogate replaced by U+FFFD (what UTF-8 encoders write for it). */
export const wellFormed = (s: string): string => (isWellFormedText(s) ? s : s.replace(/\p{Cs}/gu, '\ufffd'));

/** An escaped, cut prefix of `v` for a note (printable ASCII; bound note_prefix_chars). */
export function notePrefix(v: string): string {
  const cut = v.length > intelLimit('note_prefix_chars') ? `${v.slice(0, intelLimit('note_prefix_chars'))}…` : v;
  return escapePrefix(new TextEncoder().encode(wellFormed(cut))) ?? '';
}

/**
 * Reads a method named by a directory.
 * @returns the upper-case method, or null when it is not an RFC 9110 token or not a known method
 */
export function readMethod(v: string): string | null {
  const m = v.trim().toUpperCase();
  return TOKEN.test(m) && KNOWN_METHODS.has(m) ? m : null;
}

/** Text cut to `max` characters (an ellipsis marks the cut, never inside a surrogate pair), well-formed; null stays null. */
export function capText(v: string | null, max: number): string | null {
  if (v === null) return null;
  const s = wellFormed(v);
  if (s.length <= max) return s;
  const end = /[\ud800-\udbff]/.test(s[max - 2] ?? '') ? max - 2 : max - 1;
  return `${s.slice(0, end)}…`;
}

/** A short value (address, name): itself when within `max` characters and well-formed, else unknown (null). */
const shortOrNull = (v: string | null, max: number): string | null => (v !== null && v.length <= max && isWellFormedText(v) ? v : null);

/** `extra` when its JSON is within extra_bytes and well-formed, else unknown (null). */
function boundedExtra(v: Record<string, unknown> | null): Record<string, unknown> | null {
  if (v === null) return null;
  let json: string;
  try {
    json = JSON.stringify(v);
  } catch {
    return null;
  }
  return Buffer.byteLength(json, 'utf8') <= intelLimit('extra_bytes') && isWellFormedText(json) ? v : null;
}

/**
 * One offer with its outside text bounded: description cut; resource, payTo, asset, scheme, method, network and
 * `extra` unknown (null) beyond their bounds. Amounts and numbers are already validated by the parsers.
 */
export function boundOffer(o: Offer): Offer {
  return {
    ...o,
    scheme: shortOrNull(o.scheme, intelLimit('offer_text_chars')),
    method: shortOrNull(o.method, intelLimit('offer_text_chars')),
    network: shortOrNull(o.network, intelLimit('offer_text_chars')),
    asset: shortOrNull(o.asset, intelLimit('address_chars')),
    pay_to: shortOrNull(o.pay_to, intelLimit('address_chars')),
    description: capText(o.description, intelLimit('description_chars')),
    resource: shortOrNull(o.resource, intelLimit('url_chars')),
    extra: boundedExtra(o.extra),
  };
}

/**
 * Reads one directory entry within the bounds.
 * @returns the entry (method upper-case, description cut, offers bounded), or a note saying why it was refused:
 *   an unknown or non-token method, a URL or tool name beyond its bound or not well-formed
 */
export function boundService(d: DiscoveredService): { service: DiscoveredService } | { note: SourceNote } {
  const url = typeof d.url === 'string' ? d.url : '';
  const refuse = (detail: string): { note: SourceNote } => ({
    note: { kind: 'directory_entry_invalid', detail, url: notePrefix(url) || null },
  });
  const method = readMethod(String(d.method));
  if (method === null) return refuse(`method "${notePrefix(String(d.method))}" is not a known HTTP method`);
  if (url.length > intelLimit('url_chars')) return refuse(`resource URL of ${url.length} characters (bound ${intelLimit('url_chars')})`);
  if (!isWellFormedText(url)) return refuse('resource URL is not well-formed text (a lone UTF-16 surrogate)');
  if (d.tool !== null && (d.tool.length > intelLimit('tool_chars') || !isWellFormedText(d.tool)))
    return refuse(`tool name "${notePrefix(d.tool)}" is longer than ${intelLimit('tool_chars')} characters or not well-formed`);
  return {
    service: {
      ...d,
      method,
      description: capText(d.description, intelLimit('description_chars')),
      offers: d.offers.map(boundOffer),
    },
  };
}

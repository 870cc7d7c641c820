/**
 * Structural checks JSON.parse does not make: duplicate member names (RFC 8259 section 4: names "SHOULD be
 * unique"; JSON.parse silently keeps the last one, so `{"environment":"test","environment":"live"}` would mean
 * whatever the reader's parser picks, see RFC 7493 section 2.3) and nesting depth (deep records break
 * recursive renderers such as JSON.stringify). No JSON library in this project reports duplicates, so this is a
 * small scanner over text that JSON.parse has already accepted: it only needs to find strings, and braces and
 * brackets outside strings. parseJsonText is the one strict JSON reader of request bodies: the intake's
 * (./envelope.ts) and every other JSON route's (src/http/json-body.ts).
 */
import { InvalidInput, shortMessage } from '../domain/errors.js';

/** Deepest nesting of objects and arrays accepted in a body (the outermost value is level 1). */
export const MAX_JSON_DEPTH = 64;

// ignoreBOM keeps a U+FEFF in the text, so JSON.parse refuses what parseJsonText did not strip itself.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** A body as read: the parsed value, its text and the exact bytes parsed (the body without a leading BOM). */
export interface JsonText {
  value: unknown;
  text: string;
  bytes: Buffer;
}

/**
 * Decodes a body as strict UTF-8 JSON: one leading byte-order mark is dropped (RFC 8259 section 8.1 lets a parser
 * ignore one), duplicate member names and nesting deeper than `maxDepth` are refused, and with `refuseProto` so is a
 * member named `__proto__` (which Object.assign and merges would turn into a prototype change); so is a string whose
 * escapes spell ill-formed UTF-16 (a lone surrogate), which no store can keep as verified. Messages start
 * `malformed body:` and give character offsets, never the body's content.
 * @throws InvalidInput on invalid UTF-8 or JSON, duplicate names, deep nesting, a refused `__proto__` or a lone surrogate
 */
export function parseJsonText(body: Buffer, opts: { maxDepth?: number; refuseProto?: boolean } = {}): JsonText {
  const bytes = body.subarray(0, 3).equals(BOM) ? body.subarray(3) : body;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new InvalidInput('malformed body: not valid UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    // V8's message quotes part of the text; keep only the position.
    const at = /at position (\d+)/.exec(shortMessage(e));
    throw new InvalidInput(`malformed body: not valid JSON${at ? ` (at character ${at[1]})` : ''}`);
  }
  const problem = jsonShapeProblem(text, opts.maxDepth ?? MAX_JSON_DEPTH, opts.refuseProto ?? false);
  if (problem) throw new InvalidInput(`malformed body: ${problem}`);
  return { value, text, bytes };
}

/** A lone (unpaired) UTF-16 surrogate; with the u flag a valid pair is one code point and does not match. */
const LONE_SURROGATE = /\p{Cs}/u;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/** JSON insignificant whitespace (RFC 8259 section 2). */
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/**
 * Finds the first structural problem of a valid JSON text.
 * @param text a text JSON.parse accepted (on other text the answer is meaningless)
 * @param maxDepth objects and arrays nested at most this deep (the outermost value is level 1)
 * @param refuseProto also refuse a member named `__proto__`
 * @returns null when fine, else a message that names the character offset, never the content
 */
export function jsonShapeProblem(text: string, maxDepth: number, refuseProto = false): string | null {
  // One entry per open container: the names seen so far for an object, null for an array.
  const open: (Set<string> | null)[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let j = i + 1;
      let escaped = false;
      for (let d = text.charCodeAt(j); d !== QUOTE; d = text.charCodeAt(++j)) {
        if (d === BACKSLASH) {
          escaped = true;
          j++;
        }
      }
      // Escapes can spell a lone UTF-16 surrogate ("\ud800"), which has no UTF-8 form: each dialect would store
      // something else than what was verified (SQLite keeps it, PostgreSQL refuses or replaces it).
      const decoded = escaped ? (JSON.parse(text.slice(i, j + 1)) as string) : null;
      if (decoded !== null && LONE_SURROGATE.test(decoded))
        return `ill-formed UTF-16 in the string at character ${i} (a lone surrogate escape such as \\ud800 is not text)`;
      const names = open[open.length - 1];
      if (names) {
        // Inside an object a string is a member name exactly when a colon follows it.
        let k = j + 1;
        while (isSpace(text.charCodeAt(k))) k++;
        if (text.charCodeAt(k) === COLON) {
          // Compare decoded names: "a" and "\u0061" are the same member.
          const name = decoded ?? text.slice(i + 1, j);
          if (names.has(name)) return `duplicate member name at character ${i} (a name may appear once per object)`;
          if (refuseProto && name === '__proto__')
            return `member name "__proto__" at character ${i} is refused (readers that merge objects would change a prototype)`;
          names.add(name);
        }
      }
      i = j;
    } else if (c === 0x7b || c === 0x5b) {
      if (open.length >= maxDepth) return `objects and arrays nested deeper than ${maxDepth} levels (at character ${i})`;
      open.push(c === 0x7b ? new Set() : null);
    } else if (c === 0x7d || c === 0x5d) {
      open.pop();
    }
  }
  return null;
}

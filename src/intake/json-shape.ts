/**
 * Structural checks JSON.parse does not make: duplicate member names (RFC 8259 section 4: names "SHOULD be
 * unique"; JSON.parse silently keeps the last one, so `{"environment":"test","environment":"live"}` would mean
 * whatever the reader's parser picks, see RFC 7493 section 2.3) and nesting depth (deep records break
 * recursive renderers such as JSON.stringify). No JSON library in this project reports duplicates, so this is a
 * small scanner over text that JSON.parse has already accepted: it only needs to find strings, and braces and
 * brackets outside strings.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/** JSON insignificant whitespace (RFC 8259 section 2). */
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/**
 * Finds the first structural problem of a valid JSON text.
 * @param text a text JSON.parse accepted (on other text the answer is meaningless)
 * @param maxDepth objects and arrays nested at most this deep (the outermost value is level 1)
 * @returns null when fine, else a message that names the character offset, never the content
 */
export function jsonShapeProblem(text: string, maxDepth: number): string | null {
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
      const names = open[open.length - 1];
      if (names) {
        // Inside an object a string is a member name exactly when a colon follows it.
        let k = j + 1;
        while (isSpace(text.charCodeAt(k))) k++;
        if (text.charCodeAt(k) === COLON) {
          // Compare decoded names: "a" and "\u0061" are the same member.
          const name = escaped ? (JSON.parse(text.slice(i, j + 1)) as string) : text.slice(i + 1, j);
          if (names.has(name)) return `duplicate member name at character ${i} (a name may appear once per object)`;
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

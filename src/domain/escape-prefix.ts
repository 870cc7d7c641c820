/** Escaping of outside bytes for evidence and notes (chain metadata, directory text): one rule for both. */

/**
 * Bytes shown as printable ASCII: printable characters as they are (a backslash doubled), other code points as
 * \uXXXX (\u{XXXXX} beyond the BMP), and, when the bytes are not UTF-8, every other byte as \xNN. A multi-byte
 * character cut at the end is left out.
 * @example escapePrefix(new TextEncoder().encode('\u202eDSU')) // '\\u202eDSU'
 */
export function escapePrefix(bytes: Uint8Array | null): string | null {
  if (bytes === null) return null;
  let text: string | null;
  try {
    // stream: true keeps an incomplete trailing sequence back instead of failing on it.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes, { stream: true });
  } catch {
    text = null;
  }
  if (text === null)
    return Array.from(bytes, (b) => (b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : `\\x${hex2(b)}`)).join('');
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0x5c) out += '\\\\';
    else if (cp >= 0x20 && cp < 0x7f) out += ch;
    else out += cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`;
  }
  return out;
}

const hex2 = (b: number) => b.toString(16).padStart(2, '0');

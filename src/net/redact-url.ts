/**
 * Service URLs for logs, evidence and status: credentials, path and query removed (API keys and passwords often
 * sit in them). One rule for every URL paywatch is given (JSON-RPC node, Redis).
 */

/**
 * The URL's scheme and host only. Works for schemes the WHATWG URL parser does not know as special (redis:,
 * rediss:, postgres:), whose `origin` would be the string "null".
 * @example redactUrl('https://user:key@rpc.example/v2/KEY?x=1') === 'https://rpc.example'
 * @example redactUrl('redis://:secret@10.0.0.5:6379/2') === 'redis://10.0.0.5:6379'
 * @returns the redacted URL, or "(unparseable url)"
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(unparseable url)';
  }
}

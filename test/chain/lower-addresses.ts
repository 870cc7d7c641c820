/**
 * Test helper: a deep copy of a decoded ABI value with every address-shaped string (0x + 40 hex digits)
 * lower-cased, so our decoder (lower-case addresses) and viem's (EIP-55 checksummed) compare equal.
 */
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export function lowerAddresses<T>(value: T): T {
  if (typeof value === 'string') return (ADDRESS.test(value) ? value.toLowerCase() : value) as T;
  if (Array.isArray(value)) return value.map(lowerAddresses) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, lowerAddresses(v)])) as T;
  return value;
}

/**
 * Groups `items` by `key`, keeping the order of first appearance between groups and the input order within each.
 * (Map.groupBy does this from Node 21; paywatch runs on Node 20.)
 * @example groupBy(['ab', 'ac', 'b'], (s) => s[0]) // Map { 'a' => ['ab', 'ac'], 'b' => ['b'] }
 */
export function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    const g = m.get(k);
    if (g) g.push(it);
    else m.set(k, [it]);
  }
  return m;
}

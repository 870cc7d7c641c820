/**
 * Array building for the decoder's hot path that keeps V8's optimized code stable. Arrays the built-ins return
 * (map, filter) get their elements kind from their first contents: an empty one has another V8 map than one of
 * objects, and each property read or call on such an array that first meets the other map throws away the
 * optimized code of the function doing it (decodeTransaction was compiled again and again: bench/README.md,
 * "RPC limits"). An array literal filled by
 * push has one allocation site, which V8 pre-transitions once it has held objects: from then on every array it
 * builds, empty or not, has the same map.
 */

/**
 * What `xs.map(f)` gives, from one allocation site.
 * @param xs the input, in order
 * @param f called with each member and its index
 */
export function mapped<T, U>(xs: readonly T[], f: (x: T, i: number) => U): U[] {
  const out: U[] = [];
  for (let i = 0; i < xs.length; i++) out.push(f(xs[i]!, i));
  return out;
}

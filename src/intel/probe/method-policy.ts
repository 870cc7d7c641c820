/**
 * Which request the prober may send (docs/intelligence.md, "Bounds"): only requests that cannot change state on a
 * server that does not charge. GET and HEAD always; POST only with an empty body and only to an endpoint whose
 * directory or discovery document declares a payment for it (an offer listed for that POST endpoint); never PUT,
 * PATCH, DELETE or anything else, whatever a directory says. An MCP tool is probed as such a POST: the tool is never
 * called.
 */

/** Methods the prober ever sends. */
export const PROBE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST']);

/** The request a probe sends, or why none is sent. */
export type ProbeRequestPlan = { method: 'GET' | 'HEAD' | 'POST'; emptyBody: boolean } | { refused: string };

/**
 * Plans the probe of one service.
 * @param method the service's method as stored (any case)
 * @param paidPost true when a directory or discovery document lists an offer for this endpoint
 * @returns the method to send (POST always with an empty body), or the reason nothing is sent
 */
export function planProbe(method: string, paidPost: boolean): ProbeRequestPlan {
  const m = method.trim().toUpperCase();
  if (m === 'GET' || m === 'HEAD') return { method: m, emptyBody: true };
  if (m === 'POST')
    return paidPost ? { method: 'POST', emptyBody: true } : { refused: 'POST is probed only when a directory declares a payment for it' };
  return {
    refused: `${/^[A-Z]{1,16}$/.test(m) ? m : 'this method'} is never probed: it could change state on a server that does not charge`,
  };
}

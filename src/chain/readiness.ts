/**
 * The collector's readiness, for GET /readyz/collector (src/http/health.ts): whether the chain collection is
 * keeping up, so a standby or an alert can watch it apart from /readyz (which stays ready while the store answers,
 * since stored data is still served during a node outage).
 */
import type { AppContext } from '../context.js';
import { countQuarantined, getStatus, readQuarantined } from '../store/chain/index.js';

/** What /readyz/collector answers (ready when `reasons` is empty). */
export interface CollectorReadiness {
  ready: boolean;
  /** Why it is not ready, one line each (empty when ready). */
  reasons: string[];
  /** The collector's state (live in this process, else its last recorded row); null when none ever ran here. */
  state: string | null;
  last_error: string | null;
  /** Blocks between the checkpoint and the finalized head, null when unknown. */
  behind_blocks: number | null;
  /**
   * Seconds the collection lags: 0 when at the finalized head, else now minus the newest collected block's time;
   * null when unknown (nothing collected).
   */
  lag_seconds: number | null;
  max_lag_seconds: number;
  /** Blocks quarantined (gaps collection moved past: src/chain/collector/quarantine.ts). */
  quarantined: number;
}

/**
 * The collector's readiness at `now`. Not ready when: no collector has recorded a state on this store; it is in
 * `error` (its last error named); blocks are quarantined (it could not pass them; `collect --retry-quarantined`);
 * or it is behind the finalized head by more than `config.readyMaxLagSeconds` of chain time.
 * @throws the store's errors (the caller answers 503 for them)
 */
export async function collectorReadiness(
  ctx: Pick<AppContext, 'store' | 'config' | 'components'>,
  now = new Date(),
): Promise<CollectorReadiness> {
  const [status, quarantined, first] = await Promise.all([
    getStatus(ctx.store, now),
    countQuarantined(ctx.store),
    readQuarantined(ctx.store, 1),
  ]);
  const live = ctx.components.get('collector')?.();
  // A standing-by collector's own numbers are stale: the leader's recorded row tells how collection goes.
  const c = live && live.state !== 'standby' ? live : status.collector;
  const max = ctx.config.readyMaxLagSeconds;
  const behind = c && c.finalized_head !== null ? Math.max(0, c.finalized_head - (c.last_block ?? -1)) : null;
  const lag = behind === 0 ? 0 : status.lag_seconds;
  const reasons: string[] = [];
  if (!c) reasons.push('no collector has run on this store');
  else if (c.state === 'error') reasons.push(`collector in error: ${c.last_error ?? 'unknown error'}`);
  if (quarantined > 0)
    reasons.push(
      `${quarantined} block${quarantined > 1 ? 's' : ''} quarantined (first: ${first[0]?.height}, ${first[0]?.reason}); paywatch collect --retry-quarantined tries them again`,
    );
  if (c && behind !== 0) {
    if (lag === null) reasons.push('nothing collected yet');
    else if (lag > max)
      reasons.push(`collection lags ${lag} s behind the finalized head (${behind ?? 'unknown'} blocks); the bound is ${max} s`);
  }
  return {
    ready: reasons.length === 0,
    reasons,
    state: c?.state ?? null,
    last_error: c?.last_error ?? null,
    behind_blocks: behind,
    lag_seconds: lag,
    max_lag_seconds: max,
    quarantined,
  };
}

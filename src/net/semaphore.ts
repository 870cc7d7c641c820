/**
 * A counting semaphore: at most `n` holders at once; waiters are served first in, first out. Bounds the HTTP
 * requests one client keeps in flight (src/chain/rpc.ts).
 */
export class Semaphore {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  /** @param n holders allowed at once (≥ 1) */
  constructor(n: number) {
    this.free = n;
  }
  /** Runs `fn` once a place is free; the place is given back when it settles. @returns what `fn` resolved to */
  async use<T>(fn: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((r) => this.waiting.push(r));
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

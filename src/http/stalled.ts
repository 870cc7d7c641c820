/** The guard that cuts a streamed answer whose client stopped reading. */
import type { ServerResponse } from 'node:http';

/**
 * Aborts an export whose client stopped reading: when for `idleMs` the client has taken no bytes while some wait
 * to be sent, its connection is reset and `res` destroyed, which destroys the CSV stream piped into it (Fastify's
 * sendStream) and so frees its slot. Built on the socket's inactivity timeout (`response.setTimeout`), which Node
 * re-arms on every read, every write and every partial progress of a pending write (lib/net.js `_onTimeout`), so
 * only a client whose TCP window stayed shut the whole time is cut; an export waiting for its store (nothing
 * waiting to be sent) is not. The socket's usual timeout comes back with its next request (lib/_http_server.js).
 * @param idleMs milliseconds without a byte taken
 * @param onAbort called once when the export is aborted (logging)
 */
export function abortWhenStalled(res: ServerResponse, idleMs: number, onAbort: () => void): void {
  res.setTimeout(idleMs, () => {
    const waiting = (res.socket?.writableLength ?? 0) > 0 || res.writableNeedDrain;
    if (!waiting || res.destroyed) return;
    onAbort();
    // A reset, not a close: the kernel drops the bytes the client never took instead of trying to deliver them.
    res.socket?.resetAndDestroy();
    res.destroy();
  });
}

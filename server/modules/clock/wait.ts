// Waiting for a moment of a workspace's time (a scenario's delay step): a real timer while the
// clock runs, looked at again whenever the clock is set or moved, so that an advance past the
// moment ends the wait at once and a frozen clock holds it until the clock moves.
import type { AppContext } from '../context.js';
import type { Workspace } from '../../storage/workspace.js';
import { onClockMove } from './service.js';

/** Resolves once the workspace's time reaches `due` (epoch ms); rejects with the signal's reason
 *  when it is aborted first. */
export function waitUntil(ctx: AppContext, ws: Workspace, due: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const end = (err?: unknown) => {
      if (timer) clearTimeout(timer);
      stopListening();
      signal.removeEventListener('abort', onAbort);
      if (err === undefined) resolve(); else reject(err);
    };
    const onAbort = () => end(signal.reason ?? new Error('aborted'));
    const look = () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
      const left = due - ws.now();
      if (left <= 0) { end(); return; }
      const clock = ws.settings.data.clock;
      if (clock && 'frozenAt' in clock) return; // stands still: the next move looks again
      timer = setTimeout(look, left);
    };
    const stopListening = onClockMove(ctx, (moved) => { if (moved === ws) look(); });
    if (signal.aborted) { onAbort(); return; }
    signal.addEventListener('abort', onAbort, { once: true });
    look();
  });
}

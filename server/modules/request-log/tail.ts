// The request log's live tail: `GET /workspaces/{app_id}/requests/stream` (console API, so the
// console token guards it like every console route) as server-sent events. Each request the
// workspace serves from then on is pushed as it is logged, as the list shows it (no headers, so
// no Authorization value ever travels here), filtered by the list's own `filter[...]` parameters.
import type { Request, Response } from 'express';
import type { AppContext } from '../context.js';
import type { Workspace } from '../../storage/workspace.js';
import { parseListQuery } from '../../core/list-query.js';
import { compileMatcher, type Doc } from '../../storage/query.js';
import type { FieldType } from '../../shared/models.js';
import { watchRequestLog, type RequestLogEntry } from './request-log.js';

/** A comment line this often keeps proxies and the client's idle timers from closing the stream. */
export const TAIL_HEARTBEAT_MS = 15_000;
/** What a client waits before reconnecting after a drop (the SSE `retry` field). */
const RETRY_MS = 2_000;

export interface Tail { ws: Workspace; end: () => void }

function tailsOf(ctx: AppContext): Set<Tail> {
  return ctx.state.requestLog.tails;
}

/** Ends the tails of one workspace (deleted, closed) or all of them (shutdown): an open stream
 *  would otherwise hold the server's graceful close for its full 10 s. */
export function endTails(ctx: AppContext, ws?: Workspace): void {
  for (const t of [...tailsOf(ctx)]) if (!ws || t.ws === ws) t.end();
}

export function tailHandler(ctx: AppContext, types: Record<string, FieldType>) {
  return (req: Request, res: Response) => {
    // A bad filter is a 400 in the contract's shape, before any event is sent.
    const q = parseListQuery(req.query as Record<string, unknown>, { typeOf: (p) => types[p] });
    const matches = q.conditions.length ? compileMatcher(q.conditions) : () => true;

    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.write(`retry: ${RETRY_MS}\n: tail of ${req.ws.id}\n\n`);

    // A client that reads slower than requests come in: entries are skipped (not queued without
    // bound) until the socket drains, then a `gap` event tells it to reload the list.
    let congested = false;
    let missed = 0;
    const send = (chunk: string) => { if (!res.write(chunk)) congested = true; };
    const onDrain = () => {
      if (!congested) return;
      congested = false;
      if (missed) { send(`event: gap\ndata: ${JSON.stringify({ missed })}\n\n`); missed = 0; }
    };
    res.on('drain', onDrain);

    const stop = watchRequestLog(ctx, req.ws, {
      logged(entry: RequestLogEntry) {
        if (!matches(entry as unknown as Doc)) return;
        if (congested) { missed++; return; }
        send(`id: ${entry._id}\nevent: request\ndata: ${JSON.stringify(entry)}\n\n`);
      },
      cleared() { send('event: cleared\ndata: {}\n\n'); },
    });
    const heartbeat = setInterval(() => { if (!congested) send(': ping\n\n'); }, TAIL_HEARTBEAT_MS);
    heartbeat.unref();

    const tails = tailsOf(ctx);
    const tail: Tail = { ws: req.ws, end: () => res.end() };
    tails.add(tail);
    res.once('close', () => {
      stop();
      clearInterval(heartbeat);
      res.off('drain', onDrain);
      tails.delete(tail);
    });
  };
}

// The request log's live tail: server-sent events from the console API
// (`/api/workspaces/{app_id}/requests/stream`), read with the `eventsource` client so that the
// console token goes in the Authorization header as on every console call (a browser
// EventSource cannot send one). It reconnects by itself: the client retries after a dropped
// stream or an unreachable server, and a refused one (404, 5xx) is retried here with a back-off.
import { useEffect, useRef, useState } from 'react';
import { EventSource } from 'eventsource';
import { reportUnauthorized, withQuery } from './client';
import { consoleToken } from './session';

export type TailState = 'connecting' | 'live' | 'reconnecting' | 'paused';

export interface TailHandlers<T> {
  /** A request served since the stream opened. */
  onEntry(entry: T): void;
  /** The stream (re)opened, or it missed entries, or the log was cleared: reload the list. */
  onStale(): void;
}

export function useRequestTail<T>(appId: string, filters: Record<string, string | number | undefined>, paused: boolean, handlers: TailHandlers<T>): TailState {
  const [state, setState] = useState<TailState>(paused ? 'paused' : 'connecting');
  const h = useRef(handlers);
  h.current = handlers;
  const url = withQuery(`/api/workspaces/${encodeURIComponent(appId)}/requests/stream`, filters);

  useEffect(() => {
    if (paused) { setState('paused'); return; }
    let source: EventSource | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let stopped = false;
    const open = () => {
      setState(failures ? 'reconnecting' : 'connecting');
      const es = new EventSource(url, {
        fetch: async (input, init) => {
          const res = await fetch(input, { ...init, headers: { ...init?.headers, authorization: `Bearer ${consoleToken() ?? ''}` } });
          if (res.status === 401) reportUnauthorized();
          return res;
        },
      });
      source = es;
      es.addEventListener('open', () => { failures = 0; setState('live'); h.current.onStale(); });
      es.addEventListener('request', (e) => {
        try { h.current.onEntry(JSON.parse(e.data) as T); } catch { /* not JSON: ignore */ }
      });
      es.addEventListener('gap', () => h.current.onStale());
      es.addEventListener('cleared', () => h.current.onStale());
      es.addEventListener('error', () => {
        if (stopped) return;
        if (es.readyState === EventSource.CLOSED) {
          // Refused outright: the client gives up, so try again later ourselves.
          failures++;
          setState('reconnecting');
          timer = setTimeout(open, Math.min(15_000, 1_000 * 2 ** Math.min(failures, 4)));
        } else {
          setState('reconnecting');
        }
      });
    };
    open();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      source?.close();
    };
  }, [url, paused]);

  return state;
}

// One channel's realtime socket for the Chats page: signed in as the acting identity, subscribed
// to `chat:<channelId>`, posting messages as `message` frames, and reconnecting by itself after a
// drop or a server restart (exponential back-off with jitter, 0.5 s to 15 s, a fresh token on
// every retry since a restart may have ended the old session). The state is for the page to show.
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../../api/client';
import { tokenAs } from '../../api/act-as';

export interface ChatEvent { event: string; data: Record<string, unknown> }

export type SocketState =
  | { kind: 'connecting'; attempt: number }
  | { kind: 'live' }
  | { kind: 'waiting'; attempt: number; retryAt: number }
  | { kind: 'refused'; error: ApiError }
  | { kind: 'ended'; reason: string };

interface Frame { type: string; id?: unknown; topic?: string; event?: string; data?: Record<string, unknown>; code?: string; message?: string; details?: Record<string, unknown>; reason?: string }

export const backoffMs = (attempt: number): number => Math.min(15_000, 500 * 2 ** Math.min(attempt - 1, 5)) * (0.8 + Math.random() * 0.4);

export function useChatSocket(opts: {
  appId: string; channelId: string; actAs: string | undefined;
  onEvent: (e: ChatEvent) => void;
  /** Called each time the subscription is (re)established: messages may have been missed. */
  onLive: () => void;
  /** A frame that failed (a message the server refused). */
  onFrameError: (id: string, err: ApiError) => void;
}) {
  const { appId, channelId, actAs } = opts;
  const handlers = useRef(opts);
  handlers.current = opts;
  const [state, setState] = useState<SocketState>({ kind: 'connecting', attempt: 1 });
  const socketRef = useRef<WebSocket | undefined>(undefined);
  const kick = useRef<() => void>(() => {});
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    let socket: WebSocket | undefined;
    let stopped = false;
    let attempt = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const topic = `chat:${channelId}`;

    const retry = () => {
      if (stopped) return;
      const wait = backoffMs(attempt);
      setState({ kind: 'waiting', attempt, retryAt: Date.now() + wait });
      timer = setTimeout(connect, wait);
    };
    const connect = async () => {
      timer = undefined;
      attempt++;
      setState({ kind: 'connecting', attempt });
      let token: string;
      try {
        token = await tokenAs(appId, actAs, attempt > 1);
      } catch (e) {
        if (stopped) return;
        // A refusal of the API itself (the user to act as is gone...) is not fixed by retrying.
        if (e instanceof ApiError && e.status >= 400 && e.status < 500 && e.status !== 401 && e.status !== 429) {
          setState({ kind: 'refused', error: e });
          return;
        }
        retry();
        return;
      }
      if (stopped) return;
      const url = `${window.location.origin.replace(/^http/, 'ws')}/api/app/${encodeURIComponent(appId)}/realtime?token=${encodeURIComponent(token)}`;
      const s = new WebSocket(url);
      socket = s;
      socketRef.current = s;
      s.onopen = () => s.send(JSON.stringify({ type: 'subscribe', topic, id: 'subscribe' }));
      s.onmessage = (m) => {
        let f: Frame;
        try { f = JSON.parse(String(m.data)) as Frame; } catch { return; }
        if (f.type === 'subscribed' && f.topic === topic) {
          attempt = 0;
          setState({ kind: 'live' });
          handlers.current.onLive();
        } else if (f.type === 'event' && f.topic === topic && f.event && f.data) {
          handlers.current.onEvent({ event: f.event, data: f.data });
        } else if (f.type === 'unsubscribed' && f.topic === topic && f.reason) {
          setState({ kind: 'ended', reason: f.reason });
          stopped = true;
          s.close(1000);
        } else if (f.type === 'error') {
          const err = new ApiError(0, f.code ?? 'ERROR', f.message ?? 'The server refused a frame', f.details ?? {});
          if (f.id === 'subscribe') {
            setState({ kind: 'refused', error: err });
            stopped = true;
            s.close(1000);
          } else if (typeof f.id === 'string') {
            handlers.current.onFrameError(f.id, err);
          }
        }
      };
      s.onclose = () => {
        if (socketRef.current === s) socketRef.current = undefined;
        if (!stopped) retry();
      };
    };
    kick.current = () => {
      if (stopped || !timer) return;
      clearTimeout(timer);
      void connect();
    };
    void connect();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      socket?.close(1000);
      socketRef.current = undefined;
    };
  }, [appId, channelId, actAs, generation]);

  /** Sends a message frame; false when the socket is not live (nothing was sent). */
  const send = useCallback((id: string, text: string): boolean => {
    const s = socketRef.current;
    if (!s || s.readyState !== WebSocket.OPEN) return false;
    s.send(JSON.stringify({ type: 'message', id, channelId, text }));
    return true;
  }, [channelId]);

  /** Reconnect now: skips the wait, or starts over after a refusal or an ended subscription. */
  const retryNow = () => {
    if (state.kind === 'waiting') kick.current();
    else setGeneration((g) => g + 1);
  };

  return { state, send, retryNow };
}

// The workspace's realtime WebSocket for the console: one socket per hook use, subscribed to
// one topic, reconnecting by itself (with a freshly minted token) after a drop or a restart.
import { useEffect, useRef } from 'react';
import { adminToken } from './client';

export interface RealtimeEvent { type: 'event'; id: string; topic: string; event: string; data: Record<string, unknown> }

export function useRealtime(appId: string, topic: string | undefined, onEvent: (e: RealtimeEvent) => void): void {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    if (!topic) return;
    let socket: WebSocket | undefined;
    let closed = false;
    let retry = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const connect = async () => {
      let token: string;
      try {
        token = await adminToken(appId, retry > 0);
      } catch {
        schedule();
        return;
      }
      if (closed) return;
      const url = `${window.location.origin.replace(/^http/, 'ws')}/api/app/${encodeURIComponent(appId)}/realtime?token=${encodeURIComponent(token)}`;
      socket = new WebSocket(url);
      socket.onopen = () => { retry = 0; socket!.send(JSON.stringify({ type: 'subscribe', topic })); };
      socket.onmessage = (m) => {
        try {
          const frame = JSON.parse(String(m.data)) as RealtimeEvent;
          if (frame.type === 'event') handler.current(frame);
        } catch { /* not JSON: ignore */ }
      };
      socket.onclose = () => { if (!closed) schedule(); };
    };
    const schedule = () => {
      retry++;
      timer = setTimeout(() => void connect(), Math.min(10_000, 500 * 2 ** Math.min(retry, 5)));
    };
    void connect();
    return () => {
      closed = true;
      if (timer) clearTimeout(timer);
      socket?.close();
    };
  }, [appId, topic]);
}

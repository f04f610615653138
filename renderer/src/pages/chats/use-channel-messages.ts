// The messages of one channel as the page shows them: the newest page first, older pages on
// demand (a cursor on `createdAt`, so messages arriving meanwhile do not shift the pages), live
// events applied in place, and the newest page fetched again after each (re)connection so that
// nothing posted, edited or deleted while the socket was down is missed.
import { useCallback, useRef, useState } from 'react';
import { getMessages } from '../../data/chats/messages-page';
import type { Message } from '../../data/types';
import type { ChatEvent } from './use-chat-socket';

export type { Message };

const byTime = (a: Message, b: Message) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0);

export function useChannelMessages(appId: string, channelId: string, actAs: string | undefined) {
  const [messages, setMessages] = useState<Message[]>([]);
  const [reachedStart, setReachedStart] = useState(false);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const latestCall = useRef(0);
  // What live events said while the newest page was being fetched (id → the message, null when
  // deleted; whether it was created meanwhile): the page may have been read before they happened,
  // so they are applied over it rather than lost when it replaces the list.
  const liveDuringLoad = useRef<Map<string, { message: Message | null; created: boolean }> | undefined>(undefined);

  const page = (filter: Record<string, string> = {}) => getMessages(appId, actAs, channelId, filter);

  /** The newest page; replaces what is loaded from its oldest message on, keeps older pages. */
  const loadLatest = useCallback(async () => {
    const call = ++latestCall.current;
    const live = new Map<string, { message: Message | null; created: boolean }>();
    liveDuringLoad.current = live;
    setLoading(true);
    try {
      const res = await page();
      if (call !== latestCall.current) return;
      const fresh = [...res.data].sort(byTime);
      const complete = res.data.length >= res.meta.total;
      setMessages((old) => {
        const from = fresh[0]?.createdAt;
        const loaded = complete || from === undefined ? fresh : [...old.filter((m) => m.createdAt < from), ...fresh];
        if (!live.size) return loaded;
        // Deleted ones go, edited ones are replaced, created ones are added (an edit of a message
        // the list does not hold adds nothing).
        const ids = new Set(loaded.map((m) => m._id));
        const kept = loaded.filter((m) => !live.has(m._id) || live.get(m._id)?.message);
        const out = kept.map((m) => live.get(m._id)?.message ?? m);
        for (const [id, l] of live) if (l.message && l.created && !ids.has(id)) out.push(l.message);
        return out.sort(byTime);
      });
      if (complete) setReachedStart(true);
      setError(null);
    } catch (e) {
      if (call === latestCall.current) setError(e);
    } finally {
      if (call === latestCall.current) { setLoading(false); liveDuringLoad.current = undefined; }
    }
  }, [appId, channelId, actAs]); // eslint-disable-line react-hooks/exhaustive-deps

  const loadOlder = useCallback(async (oldest: string) => {
    setLoading(true);
    try {
      const res = await page({ 'filter[createdAt][$lt]': oldest });
      setMessages((old) => {
        const known = new Set(old.map((m) => m._id));
        return [...res.data.filter((m) => !known.has(m._id)).sort(byTime), ...old];
      });
      if (res.data.length >= res.meta.total) setReachedStart(true);
      setError(null);
    } catch (e) {
      setError(e);
    } finally {
      setLoading(false);
    }
  }, [appId, channelId, actAs]); // eslint-disable-line react-hooks/exhaustive-deps

  const apply = useCallback((e: ChatEvent) => {
    const m = e.data as unknown as Message;
    const seen = liveDuringLoad.current;
    if (seen) seen.set(m._id, { message: e.event === 'message.deleted' ? null : m, created: e.event === 'message.created' || !!seen.get(m._id)?.created });
    if (e.event === 'message.created') {
      setMessages((old) => (old.some((x) => x._id === m._id) ? old : [...old, m].sort(byTime)));
    } else if (e.event === 'message.updated') {
      setMessages((old) => old.map((x) => (x._id === m._id ? m : x)));
    } else if (e.event === 'message.deleted') {
      setMessages((old) => old.filter((x) => x._id !== m._id));
    }
  }, []);

  const reset = useCallback(() => { latestCall.current++; liveDuringLoad.current = undefined; setMessages([]); setReachedStart(false); setError(null); }, []);

  return { messages, hasOlder: !reachedStart && messages.length > 0, loading, error, loadLatest, loadOlder, apply, reset };
}

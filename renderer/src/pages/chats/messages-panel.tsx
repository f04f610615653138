// A channel's messages, live: the newest page, older pages on demand, new/edited/deleted messages
// from the realtime socket, a composer posting over that socket, edit and delete of one's own.
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { ApiError } from '../../api/client';
import { useMessageEditMutation } from '../../data/chats/message-edit-mutation';
import { useMessageDeleteMutation } from '../../data/chats/message-delete-mutation';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import { ConnectionStatus } from './connection-status';
import { MessageItem } from './message-item';
import { useChannelMessages, type Message } from './use-channel-messages';
import { useChatSocket } from './use-chat-socket';
import { useUserLabels, userLabel } from './use-user-labels';

// Frame ids (crypto.randomUUID exists only in secure contexts: not over http on a LAN address).
let frameSeq = 0;

export function MessagesPanel({ appId, channelId, actAs, myId, isAdmin, onChannelEvent }: {
  appId: string; channelId: string; actAs: string | undefined; myId: string; isAdmin: boolean; onChannelEvent: () => void;
}) {
  const msgs = useChannelMessages(appId, channelId, actAs);
  const [text, setText] = useState('');
  const [sendError, setSendError] = useState<unknown>(null);
  const [deleting, setDeleting] = useState<Message | null>(null);
  const sent = useRef(new Map<string, string>());

  const socket = useChatSocket({
    appId, channelId, actAs,
    onLive: () => void msgs.loadLatest(),
    onEvent: (e) => {
      if (e.event.startsWith('message.')) msgs.apply(e);
      else onChannelEvent();
    },
    onFrameError: (id, err) => {
      const lost = sent.current.get(id);
      sent.current.delete(id);
      setSendError(new ApiError(err.status, err.code, `The message was not sent: ${err.message}`, err.details));
      if (lost !== undefined) setText((t) => t || lost);
    },
  });
  useEffect(() => { msgs.reset(); }, [appId, channelId, actAs]); // eslint-disable-line react-hooks/exhaustive-deps

  const edit = useMessageEditMutation(appId, actAs, { onSuccess: (m) => msgs.apply({ event: 'message.updated', data: m as unknown as Record<string, unknown> }) });
  const del = useMessageDeleteMutation(appId, actAs, {
    onSuccess: (m) => { setDeleting(null); msgs.apply({ event: 'message.deleted', data: m as unknown as Record<string, unknown> }); },
  });

  const live = socket.state.kind === 'live';
  const send = () => {
    const body = text.trim();
    if (!body || !live) return;
    const id = `m${++frameSeq}-${Date.now().toString(36)}`;
    if (!socket.send(id, text)) return;
    sent.current.set(id, text);
    setSendError(null);
    setText('');
  };

  const labels = useUserLabels(appId, msgs.messages.map((m) => m.author._id));
  const scroller = useStickyScroll(msgs.messages);

  return (
    <section className="messages stack" aria-labelledby="messages-h">
      <div className="row">
        <h3 id="messages-h" style={{ flex: 1, margin: 0 }}>Messages</h3>
        <ConnectionStatus state={socket.state} onRetry={socket.retryNow} />
      </div>
      <ErrorBox error={msgs.error ?? edit.error} />
      <div className="message-scroll" ref={scroller} role="log" aria-label="Messages" tabIndex={0}>
        {msgs.hasOlder ? (
          <button type="button" className="small load-older" disabled={msgs.loading} onClick={() => void msgs.loadOlder(msgs.messages[0].createdAt)}>
            {msgs.loading ? 'Loading…' : 'Load older messages'}
          </button>
        ) : null}
        {msgs.messages.length === 0 && !msgs.loading ? <p className="muted">No message yet.</p> : null}
        <ol className="message-list">
          {msgs.messages.map((m) => (
            <MessageItem key={m._id} m={m} author={userLabel(labels, m.author._id, m.author.name)}
              mine={m.author._id === myId} canDelete={m.author._id === myId || isAdmin}
              saving={edit.isPending && edit.variables?.id === m._id}
              saveError={edit.error && edit.variables?.id === m._id ? (edit.error as Error).message : undefined}
              onSave={(t) => edit.mutateAsync({ id: m._id, text: t })} onDelete={() => { del.reset(); setDeleting(m); }} />
          ))}
        </ol>
      </div>
      <form className="composer" onSubmit={(e) => { e.preventDefault(); send(); }}>
        <div className="field" style={{ flex: 1 }}>
          <label htmlFor="composer-text">Message</label>
          <textarea id="composer-text" value={text} rows={2} onChange={(e) => setText(e.target.value)} aria-describedby="composer-hint"
            onKeyDown={(e) => { if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); send(); } }} />
          <span className="hint" id="composer-hint">
            {live ? 'Enter sends, Shift+Enter starts a new line. Sent over the realtime socket.' : 'Sending waits for the connection; what you type is kept.'}
          </span>
        </div>
        <button type="submit" className="primary" disabled={!live || !text.trim()}>Send</button>
      </form>
      <ErrorBox error={sendError} />
      <Dialog open={!!deleting} title="Delete this message?" onClose={() => setDeleting(null)}>
        {deleting ? (
          <div className="stack">
            <blockquote className="quote">{deleting.text}</blockquote>
            <p>{deleting.author._id === myId ? 'It disappears for everyone in the channel.' : 'It is not yours: you delete it as an administrator, for everyone in the channel.'}</p>
            <ErrorBox error={del.error} />
            <div className="form-actions"><button type="button" className="danger" disabled={del.isPending} onClick={() => del.mutate(deleting)}>Delete message</button></div>
          </div>
        ) : null}
      </Dialog>
    </section>
  );
}

/** Keeps the list scrolled to the bottom when it was there, and in place when older messages
 *  are added above. */
function useStickyScroll(messages: Message[]) {
  const ref = useRef<HTMLDivElement>(null);
  const last = useRef({ first: '', height: 0, atBottom: true });
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const first = messages[0]?._id ?? '';
    if (last.current.first && first !== last.current.first && !last.current.atBottom) {
      el.scrollTop += el.scrollHeight - last.current.height; // older messages added above
    } else if (last.current.atBottom) {
      el.scrollTop = el.scrollHeight;
    }
    last.current = { first, height: el.scrollHeight, atBottom: true };
    const onScroll = () => { last.current.atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 40; last.current.height = el.scrollHeight; };
    onScroll();
    el.addEventListener('scroll', onScroll);
    return () => el.removeEventListener('scroll', onScroll);
  }, [messages]);
  return ref;
}

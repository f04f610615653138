// The socket's state in words, announced politely to screen readers, with "Retry now".
import { useEffect, useState } from 'react';
import type { SocketState } from './use-chat-socket';

export function ConnectionStatus({ state, onRetry }: { state: SocketState; onRetry: () => void }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (state.kind !== 'waiting') return;
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, [state]);
  let dot = '';
  let text: string;
  switch (state.kind) {
    case 'live': dot = 'ok'; text = 'Live: new messages appear as they are posted'; break;
    case 'connecting': text = state.attempt > 1 ? `Reconnecting (attempt ${state.attempt})…` : 'Connecting…'; break;
    case 'waiting': dot = 'down'; text = `Disconnected. Reconnecting in ${Math.max(1, Math.ceil((state.retryAt - now) / 1000))} s (attempt ${state.attempt + 1})`; break;
    case 'refused': dot = 'down'; text = `Not following this channel: ${state.error.code}: ${state.error.message}`; break;
    case 'ended': dot = 'down'; text = `No longer following this channel: ${state.reason}`; break;
  }
  return (
    <div className="row connection">
      <span role="status" className="row" style={{ gap: 6 }}>
        <span className={`dot ${dot}`} aria-hidden="true" />
        <span>{text}</span>
      </span>
      {state.kind === 'waiting' || state.kind === 'refused' || state.kind === 'ended'
        ? <button type="button" className="small" onClick={onRetry}>{state.kind === 'waiting' ? 'Retry now' : 'Try again'}</button>
        : null}
    </div>
  );
}

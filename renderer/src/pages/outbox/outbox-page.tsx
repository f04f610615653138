// `/app/{app_id}/outbox`: the emails the workspace would have sent, newest first, with the
// recovery token ready to copy.
import { useState } from 'react';
import { useParams } from 'react-router';
import { CopyButton } from '../../components/copy-button';
import { ErrorBox } from '../../components/error-box';
import { Pager } from '../../components/pager';
import { useOutboxQuery } from '../../data/outbox/outbox-query';

export function OutboxPage() {
  const { appId = '' } = useParams();
  const [offset, setOffset] = useState(0);
  const limit = 20;
  const list = useOutboxQuery(appId, { limit, offset });
  return (
    <div className="stack">
      <div>
        <h1>Outbox</h1>
        <p className="muted">Emails this workspace would have sent (password recovery), newest first. Nothing leaves your machine.</p>
      </div>
      <ErrorBox error={list.error} />
      {list.data?.data.map((m) => (
        <article key={m._id} className="card stack" aria-label={`Email to ${m.to}`}>
          <div className="row">
            <strong style={{ flex: 1 }}>{m.subject}</strong>
            <span className="badge">{m.type}</span>
            <span className="muted small">{new Date(m.createdAt).toLocaleString()}</span>
          </div>
          <div className="muted">To <code>{m.to}</code></div>
          {m.token ? (
            <div className="row"><span>Recovery token</span><code>{m.token}</code><CopyButton text={m.token} what={`the recovery token for ${m.to}`} />
              {m.expiresAt ? <span className="muted small">expires {new Date(m.expiresAt).toLocaleString()}</span> : null}</div>
          ) : null}
          <pre>{m.text}</pre>
        </article>
      ))}
      {list.data?.data.length === 0 ? <p className="muted">No email yet. A password recovery (<code>POST /auth/forgot-password</code>, or "Send recovery email" on the Users page) lands here.</p> : null}
      {list.data ? <Pager total={list.data.meta.total} offset={offset} limit={limit} onOffset={setOffset} label="Outbox pages" /> : null}
    </div>
  );
}

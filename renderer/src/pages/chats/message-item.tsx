// One message: author, time, text ("edited" when changed), and for the acting identity's own
// messages Edit (inline; Enter saves, Escape cancels) and Delete (admins may delete any).
import { useState } from 'react';
import type { Message } from './use-channel-messages';

export function MessageItem({ m, author, mine, canDelete, onSave, onDelete, saving, saveError }: {
  m: Message; author: string; mine: boolean; canDelete: boolean;
  onSave: (text: string) => Promise<unknown>; onDelete: () => void; saving: boolean; saveError?: string;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  const when = new Date(m.createdAt);
  const save = () => { if (editing !== null) void onSave(editing).then(() => setEditing(null), () => {}); };
  const short = m.text.length > 40 ? `${m.text.slice(0, 40)}…` : m.text;
  return (
    <li className={`message${mine ? ' mine' : ''}`} aria-label={`${author}: ${short}`}>
      <div className="message-head">
        <strong>{author}</strong>{mine ? <span className="badge">you</span> : null}
        <time className="muted small" dateTime={m.createdAt} title={when.toLocaleString()}>{when.toLocaleTimeString()}</time>
        {m.updatedAt !== m.createdAt ? <span className="muted small">(edited)</span> : null}
        <span className="spacer" />
        {mine && editing === null ? <button type="button" className="link small" onClick={() => setEditing(m.text)} aria-label={`Edit message “${short}”`}>Edit</button> : null}
        {canDelete && editing === null ? <button type="button" className="link small" onClick={onDelete} aria-label={`Delete message “${short}”`}>Delete</button> : null}
      </div>
      {editing === null ? <div className="message-text">{m.text}</div> : (
        <form className="stack" style={{ gap: 6 }} onSubmit={(e) => { e.preventDefault(); save(); }}>
          <label className="field">Edit the message
            <textarea value={editing} rows={2} autoFocus onChange={(e) => setEditing(e.target.value)}
              aria-invalid={saveError ? true : undefined}
              onKeyDown={(e) => {
                if (e.key === 'Escape') { e.preventDefault(); setEditing(null); }
                if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); save(); }
              }} />
          </label>
          {saveError ? <span className="field-error" role="alert">{saveError}</span> : null}
          <div className="row">
            <button type="submit" className="small primary" disabled={saving}>Save</button>
            <button type="button" className="small" onClick={() => setEditing(null)}>Cancel</button>
          </div>
        </form>
      )}
    </li>
  );
}

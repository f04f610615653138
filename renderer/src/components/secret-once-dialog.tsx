// A secret the server answers once (an API key's value, a client secret): shown in a dialog with
// a copy button and a warning that it will not be shown again. The caller holds the value in its
// own state only, and drops it when the dialog closes.
import type { ReactNode } from 'react';
import { CopyButton } from './copy-button';
import { Dialog } from './dialog';

export interface SecretOnce {
  /** The dialog's title. */
  title: string;
  value: string;
  /** The accessible name of the shown value (`Value of nightly-export`). */
  label: string;
  /** What the copy button copies (`the API key`). */
  what: string;
  /** After the warning: what to do if it is lost. */
  ifLost: ReactNode;
  /** Shown above the value (an id that goes with it). */
  before?: ReactNode;
  /** Shown under the value: how to use it. */
  usage: ReactNode;
}

export function SecretOnceDialog({ secret, onClose }: { secret: SecretOnce | null; onClose: () => void }) {
  return (
    <Dialog open={!!secret} title={secret?.title ?? ''} onClose={onClose}>
      {secret ? (
        <div className="stack">
          <p className="notice" role="status"><strong>Copy it now: you will not see it again.</strong> {secret.ifLost}</p>
          {secret.before}
          <div className="row" style={{ flexWrap: 'nowrap', alignItems: 'flex-start' }}>
            <code aria-label={secret.label} style={{ wordBreak: 'break-all' }}>{secret.value}</code>
            <CopyButton text={secret.value} what={secret.what} />
          </div>
          <p className="muted small">{secret.usage}</p>
          <div className="form-actions"><button type="button" className="primary" onClick={onClose}>I have copied it</button></div>
        </div>
      ) : null}
    </Dialog>
  );
}

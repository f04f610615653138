// Asks before an action that cannot be undone (revoke, delete): what it does, and a danger
// button that does it; Cancel (when offered) and the close button leave everything as it is.
import type { ReactNode } from 'react';
import { Dialog } from './dialog';

export function ConfirmDialog(props: {
  open: boolean; title: string; onClose: () => void; onConfirm: () => void;
  /** The danger button's text (`Revoke key`). */
  confirm: string; children: ReactNode; cancel?: boolean; busy?: boolean;
}) {
  return (
    <Dialog open={props.open} title={props.title} onClose={props.onClose}>
      <div className="stack">
        {props.children}
        <div className="form-actions">
          {props.cancel === false ? null : <button type="button" onClick={props.onClose}>Cancel</button>}
          <button type="button" className="danger" disabled={props.busy} onClick={props.onConfirm}>{props.confirm}</button>
        </div>
      </div>
    </Dialog>
  );
}

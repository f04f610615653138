// A modal on the native <dialog> (focus kept inside, Escape closes); `side` makes it a panel
// sliding in from the right, for a record's JSON or a long value.
import { useEffect, useId, useRef, type ReactNode } from 'react';

export function Dialog(props: { open: boolean; title: ReactNode; onClose: () => void; children: ReactNode; side?: boolean; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) {
      d.showModal();
      // Opened at its top (its title and first label in view), whatever took the focus inside.
      requestAnimationFrame(() => { d.scrollTop = 0; d.querySelector('.dialog-body')?.scrollTo(0, 0); });
    }
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog
      ref={ref}
      className={props.side ? 'side' : undefined}
      style={props.wide ? { width: 'min(900px, calc(100vw - 24px))' } : undefined}
      aria-labelledby={titleId}
      onClose={props.onClose}
      onCancel={(e) => { e.preventDefault(); props.onClose(); }}
    >
      {props.open ? (
        <>
          <div className="dialog-head">
            <h2 id={titleId}>{props.title}</h2>
            <button type="button" className="small" onClick={props.onClose} aria-label="Close">✕</button>
          </div>
          <div className="dialog-body">{props.children}</div>
        </>
      ) : null}
    </dialog>
  );
}

// A labelled input with a hint and the API's error for it, wired for screen readers.
import { useId, type InputHTMLAttributes } from 'react';

export function TextField(props: {
  label: string; value: string; onChange: (v: string) => void; error?: string; hint?: string;
  type?: string; required?: boolean; inputProps?: InputHTMLAttributes<HTMLInputElement>;
}) {
  const id = useId();
  const describedBy = [props.hint ? `${id}-hint` : '', props.error ? `${id}-err` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <label className="field">
      {props.label}{props.required ? ' *' : ''}
      <input
        type={props.type ?? 'text'}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={describedBy}
        required={props.required}
        autoComplete="off"
        {...props.inputProps}
      />
      {props.hint ? <span className="hint" id={`${id}-hint`}>{props.hint}</span> : null}
      {props.error ? <span className="field-error" id={`${id}-err`}>{props.error}</span> : null}
    </label>
  );
}

// One step of a scenario as a form of its type (docs/scenarios.md, Steps), with the server's
// problems about it shown in place: the step's own list at the top, each field's under its input.
import { useId, useState } from 'react';
import { TextField } from '../../components/text-field';
import {
  HTTP_METHODS, MAX_DELAY_MS, STEP_TYPES, jsonFieldText, messageFor, parseJsonField, type FieldProblem, type Step,
} from './model';

type Problems = Array<FieldProblem & { sub: string }> | undefined;

export function StepCard(props: {
  index: number; count: number; step: Step; problems: Problems;
  onChange: (s: Step) => void; onType: (type: string) => void; onMove: (delta: number) => void; onRemove: () => void;
}) {
  const { index, step, problems } = props;
  const n = index + 1;
  const set = (k: string, v: unknown) => {
    const next = { ...step };
    if (v === undefined) delete next[k]; else next[k] = v;
    props.onChange(next);
  };
  const errorId = useId();
  return (
    <fieldset className="card stack" aria-describedby={problems?.length ? errorId : undefined}>
      <legend>Step {n} · {step.type}</legend>
      {problems?.length ? (
        <div role="alert" aria-label={`Problems of step ${n}`} id={errorId}><ul className="field-error" style={{ margin: 0, paddingLeft: 18 }}>
          {problems.map((p) => <li key={p.field + p.message}>{p.message}</li>)}
        </ul></div>
      ) : null}
      <div className="row">
        <label className="check">Type
          <select value={step.type} onChange={(e) => props.onType(e.target.value)} aria-invalid={messageFor(problems, 'type') ? true : undefined}>
            {(STEP_TYPES as readonly string[]).includes(step.type) ? null : <option value={step.type}>{step.type}</option>}
            {STEP_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </label>
        <span style={{ flex: 1 }} />
        <button type="button" className="small" onClick={() => props.onMove(-1)} disabled={index === 0} aria-label={`Move step ${n} up`}>↑</button>
        <button type="button" className="small" onClick={() => props.onMove(1)} disabled={index === props.count - 1} aria-label={`Move step ${n} down`}>↓</button>
        <button type="button" className="small" onClick={props.onRemove} aria-label={`Remove step ${n}`}>Remove</button>
      </div>
      <StepFields step={step} set={set} problems={problems} n={n} />
    </fieldset>
  );
}

function StepFields({ step, set, problems, n }: { step: Step; set: (k: string, v: unknown) => void; problems: Problems; n: number }) {
  const text = (k: string, label: string, opts: { required?: boolean; hint?: string } = {}) => (
    <TextField label={label} value={typeof step[k] === 'string' ? (step[k] as string) : ''} onChange={(v) => set(k, v === '' && !opts.required ? undefined : v)}
      error={messageFor(problems, k)} required={opts.required} hint={opts.hint} />
  );
  const templates = 'Templates: {{event.data.x}}, {{steps.0.output.x}}, {{secrets.NAME}}.';
  switch (step.type) {
    case 'http':
      return (
        <div className="stack">
          <div className="row" style={{ alignItems: 'flex-start' }}>
            <label className="field">Method
              <select value={typeof step.method === 'string' ? step.method : ''} onChange={(e) => set('method', e.target.value || undefined)} aria-invalid={messageFor(problems, 'method') ? true : undefined}>
                <option value="">Default (POST with a body, else GET)</option>
                {HTTP_METHODS.map((m) => <option key={m}>{m}</option>)}
              </select>
            </label>
            <div style={{ flex: 1, minWidth: 260 }}>{text('url', 'URL', { required: true, hint: `http:// or https://. ${templates}` })}</div>
          </div>
          <HeadersField value={step.headers} onChange={(v) => set('headers', v)} error={messageFor(problems, 'headers')} n={n} />
          <BodyField value={step.body} onChange={(v) => set('body', v)} error={messageFor(problems, 'body')} />
        </div>
      );
    case 'record.create':
    case 'record.update':
    case 'record.delete':
      return (
        <div className="stack">
          <div className="grid-2">
            {text('collection', 'Collection', { required: true })}
            {step.type !== 'record.create' ? text('id', 'Record id', { required: true, hint: templates }) : null}
          </div>
          {step.type !== 'record.delete' ? (
            <JsonText label={step.type === 'record.create' ? 'Data (JSON object)' : 'Changes (JSON object)'} value={step.data} stringsAllowed
              onChange={(v) => set('data', v)} error={messageFor(problems, 'data')} hint={`An object, or one template such as {{event.data}}. ${templates}`} />
          ) : null}
        </div>
      );
    case 'message.send':
      return (
        <div className="stack">
          <div className="grid-2">
            {text('channelId', 'Channel id', { required: true })}
            {text('messageType', 'Message type', { hint: 'Optional (text by default).' })}
          </div>
          <TextArea label="Text *" value={typeof step.text === 'string' ? step.text : ''} onChange={(v) => set('text', v)} error={messageFor(problems, 'text')} hint={templates} />
        </div>
      );
    case 'delay':
      return (
        <TextField label="Wait (milliseconds)" type="number" value={typeof step.ms === 'number' ? String(step.ms) : typeof step.ms === 'string' ? step.ms : ''}
          onChange={(v) => set('ms', v === '' ? undefined : Number.isFinite(Number(v)) ? Number(v) : v)}
          error={messageFor(problems, 'ms')} required hint={`0 to ${MAX_DELAY_MS.toLocaleString()} (5 minutes).`} inputProps={{ min: 0, step: 1 }} />
      );
    default:
      return <p className="muted">No form for this type: choose one above, or edit the step in the JSON view.</p>;
  }
}

function TextArea(props: { label: string; value: string; onChange: (v: string) => void; error?: string; hint?: string; mono?: boolean }) {
  const id = useId();
  const describedBy = [props.hint ? `${id}-hint` : '', props.error ? `${id}-err` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <label className="field">
      {props.label}
      <textarea value={props.value} onChange={(e) => props.onChange(e.target.value)} aria-invalid={props.error ? true : undefined}
        aria-describedby={describedBy} className={props.mono ? 'mono' : undefined} spellCheck={false} />
      {props.hint ? <span className="hint" id={`${id}-hint`}>{props.hint}</span> : null}
      {props.error ? <span className="field-error" id={`${id}-err`}>{props.error}</span> : null}
    </label>
  );
}

/** A JSON value typed as text; the draft holds what it parses to (or InvalidJson, which the
 *  editor reports at the step and refuses to save). */
function JsonText(props: { label: string; value: unknown; onChange: (v: unknown) => void; stringsAllowed: boolean; error?: string; hint?: string }) {
  const [text, setText] = useState(() => jsonFieldText(props.value));
  return (
    <TextArea label={props.label} value={text} mono error={props.error} hint={props.hint}
      onChange={(t) => { setText(t); props.onChange(t.trim() === '' ? undefined : parseJsonField(t, props.stringsAllowed)); }} />
  );
}

function BodyField(props: { value: unknown; onChange: (v: unknown) => void; error?: string }) {
  const [mode, setMode] = useState<'none' | 'text' | 'json'>(props.value === undefined ? 'none' : typeof props.value === 'string' ? 'text' : 'json');
  const [text, setText] = useState(() => jsonFieldText(props.value));
  const apply = (m: typeof mode, t: string) => props.onChange(m === 'none' ? undefined : m === 'text' ? t : t.trim() === '' ? undefined : parseJsonField(t, false));
  return (
    <div className="stack">
      <label className="check">Body
        <select value={mode} onChange={(e) => { const m = e.target.value as typeof mode; setMode(m); apply(m, text); }}>
          <option value="none">None</option>
          <option value="text">Text, sent as is</option>
          <option value="json">JSON, sent as application/json</option>
        </select>
      </label>
      {mode !== 'none' ? <TextArea label={mode === 'json' ? 'Body (JSON)' : 'Body (text)'} value={text} mono error={props.error} onChange={(t) => { setText(t); apply(mode, t); }} /> : null}
    </div>
  );
}

/** Headers as name / value rows; the draft holds them as an object (empty names left out). */
function HeadersField(props: { value: unknown; onChange: (v: Record<string, string> | undefined) => void; error?: string; n: number }) {
  const initial = props.value && typeof props.value === 'object' ? Object.entries(props.value as Record<string, unknown>).map(([k, v]) => [k, String(v)] as [string, string]) : [];
  const [rows, setRows] = useState<Array<[string, string]>>(initial);
  const update = (next: Array<[string, string]>) => {
    setRows(next);
    const obj = Object.fromEntries(next.filter(([k]) => k.trim() !== ''));
    props.onChange(Object.keys(obj).length ? obj : undefined);
  };
  return (
    <fieldset>
      <legend>Headers</legend>
      <div className="stack" style={{ gap: 6 }}>
        {rows.map(([k, v], i) => (
          <div className="row" key={i}>
            <input aria-label={`Step ${props.n} header ${i + 1} name`} placeholder="name" value={k} onChange={(e) => update(rows.map((r, j) => (j === i ? [e.target.value, r[1]] : r)))} />
            <input aria-label={`Step ${props.n} header ${i + 1} value`} placeholder="value" value={v} style={{ flex: 1 }} onChange={(e) => update(rows.map((r, j) => (j === i ? [r[0], e.target.value] : r)))} />
            <button type="button" className="small" onClick={() => update(rows.filter((_, j) => j !== i))} aria-label={`Remove header ${i + 1} of step ${props.n}`}>Remove</button>
          </div>
        ))}
        <div><button type="button" className="small" onClick={() => setRows([...rows, ['', '']])}>Add header</button></div>
        {props.error ? <span className="field-error">{props.error}</span> : null}
      </div>
    </fieldset>
  );
}

// One input per field type for the record form (PocketBase's per-type field plug-ins, in
// small): drafts are text, turned into the typed value on save.
import { useId, useRef, useState } from 'react';
import { enc } from '../../api/client';
import { uploadFile } from '../../data/files/file-upload';
import { useRefPickerQuery } from '../../data/records/ref-picker-query';
import { JsonEditor } from '../../components/json-field';
import { tryParse } from '../../lib/json';
import type { FieldDef } from '../../data/types';

/** The draft text of a stored value. */
export function toDraft(field: FieldDef, v: unknown): string {
  if (v === undefined || v === null) return '';
  if (field.type === 'json' || field.type === 'array') return JSON.stringify(v, null, 2);
  if (field.type === 'date' && typeof v === 'string') {
    const d = new Date(v);
    if (Number.isNaN(d.getTime())) return v;
    const pad = (n: number, w = 2) => String(n).padStart(w, '0');
    // Local time to the second (the date input shows no milliseconds; a value with some keeps
    // them unless the field is changed).
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  }
  return String(v);
}

/** The value to send for a draft, or an error to show at the field before sending. */
export function fromDraft(field: FieldDef, draft: string): { value?: unknown; error?: string } {
  if (draft === '') return { value: undefined };
  switch (field.type) {
    case 'number':
    case 'integer': {
      const n = Number(draft);
      // Not a number: sent as typed, so that the API's own validation answers at the field.
      return { value: draft.trim() !== '' && Number.isFinite(n) ? n : draft };
    }
    case 'boolean': return { value: draft === 'true' };
    case 'date': {
      const d = new Date(draft);
      return Number.isNaN(d.getTime()) ? { value: draft } : { value: d.toISOString() };
    }
    case 'json':
    case 'array': {
      const parsed = tryParse(draft);
      return parsed.error ? { error: `Not valid JSON: ${parsed.error}` } : { value: parsed.value };
    }
    case 'enum': {
      const match = field.options?.values?.find((v) => String(v) === draft);
      return { value: match ?? draft };
    }
    default: return { value: draft };
  }
}

export function FieldInput({ appId, field, value, onChange, error }: { appId: string; field: FieldDef; value: string; onChange: (v: string) => void; error?: string }) {
  const id = useId();
  const label = `${field.name && field.name !== field._id ? `${field.name} (${field._id})` : field._id}${field.required ? ' *' : ''}`;
  const describedBy = `${id}-hint${error ? ` ${id}-err` : ''}`;
  const common = { id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy } as const;
  let input: React.ReactNode;
  switch (field.type) {
    case 'number':
    case 'integer':
      input = <input {...common} type="text" inputMode={field.type === 'integer' ? 'numeric' : 'decimal'} value={value} onChange={(e) => onChange(e.target.value)} />;
      break;
    case 'boolean':
      input = <select {...common} value={value} onChange={(e) => onChange(e.target.value)}><option value="">(not set)</option><option value="true">true</option><option value="false">false</option></select>;
      break;
    case 'date':
      input = <input {...common} type="datetime-local" step="1" value={value} onChange={(e) => onChange(e.target.value)} />;
      break;
    case 'enum':
      input = (
        <select {...common} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">(not set)</option>
          {(field.options?.values ?? []).map((v) => <option key={String(v)} value={String(v)}>{String(v)}</option>)}
        </select>
      );
      break;
    case 'json':
    case 'array':
      input = <JsonEditor id={id} label={label} value={value} onChange={onChange} minHeight={70} />;
      break;
    case 'reference':
    case 'user':
    case 'file':
      input = <PickerInput appId={appId} field={field} common={common} value={value} onChange={onChange} />;
      break;
    default:
      input = <input {...common} type={field.type === 'email' ? 'email' : field.type === 'url' ? 'url' : 'text'} value={value} onChange={(e) => onChange(e.target.value)} />;
  }
  const hint = [field.type, field.type === 'reference' ? `→ ${field.options?.collection}` : '', field.unique ? 'unique' : '',
    field.options?.min !== undefined ? `min ${field.options.min}` : '', field.options?.max !== undefined ? `max ${field.options.max}` : '',
    field.options?.minLength !== undefined ? `at least ${field.options.minLength} characters` : '', field.options?.maxLength !== undefined ? `at most ${field.options.maxLength} characters` : '',
  ].filter(Boolean).join(' · ');
  return (
    <div className="field" style={{ display: 'flex', flexDirection: 'column', gap: 4 }} data-field={field._id}>
      <label htmlFor={id} style={{ fontWeight: 500 }}>{label}</label>
      {input}
      <span className="hint" id={`${id}-hint`}>{hint}</span>
      {error ? <span className="field-error" id={`${id}-err`}>{error}</span> : null}
    </div>
  );
}

/** Reference, user and file fields: a text input with suggestions from the target list. */
function PickerInput({ appId, field, common, value, onChange }: { appId: string; field: FieldDef; common: Record<string, unknown>; value: string; onChange: (v: string) => void }) {
  const listId = useId();
  const path = field.type === 'user' ? '/users' : field.type === 'file' ? '/storage' : `/database/${enc(String(field.options?.collection ?? ''))}`;
  const options = useRefPickerQuery(appId, path, value);
  const describe = (r: Record<string, unknown>) => String(r.email ?? r.name ?? r.title ?? Object.values(r).find((v) => typeof v === 'string' && v !== r._id) ?? '');
  const input = <input {...common} list={listId} value={value} onChange={(e) => onChange(e.target.value)} placeholder={`${field.type === 'reference' ? 'record' : field.type} id`} autoComplete="off" />;
  const datalist = <datalist id={listId}>{options.data?.data.map((r) => <option key={String(r._id)} value={String(r._id)}>{describe(r)}</option>)}</datalist>;
  if (field.type !== 'file') return <>{input}{datalist}</>;
  return <div className="stack" style={{ gap: 4 }}>{input}{datalist}<FileUpload appId={appId} field={field} onUploaded={onChange} /></div>;
}

function FileUpload({ appId, field, onUploaded }: { appId: string; field: FieldDef; onUploaded: (id: string) => void }) {
  const picker = useRef<HTMLInputElement>(null);
  const [state, setState] = useState<{ busy?: boolean; done?: string; error?: string }>({});
  const pick = async (file: File | undefined) => {
    if (!file) return;
    setState({ busy: true });
    try {
      const uploaded = await uploadFile(appId, file);
      onUploaded(uploaded._id);
      setState({ done: `Uploaded ${uploaded.name} (${uploaded._id}).` });
    } catch (e) {
      setState({ error: `The upload failed: ${(e as Error).message}` });
    } finally {
      if (picker.current) picker.current.value = '';
    }
  };
  return (
    <div className="row" style={{ gap: 8 }}>
      <input ref={picker} type="file" hidden aria-hidden="true" tabIndex={-1} onChange={(e) => void pick(e.target.files?.[0])} data-upload-for={field._id} />
      <button type="button" className="small" disabled={state.busy} onClick={() => picker.current?.click()}>{state.busy ? 'Uploading…' : `Upload a file for ${field.name || field._id}`}</button>
      <span className="small" role="status">{state.done ?? ''}{state.error ? <span className="field-error">{state.error}</span> : null}</span>
    </div>
  );
}

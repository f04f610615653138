// Create or edit a record: an input per field of the schema, the other properties as JSON, and
// the API's validation errors shown at their field.
import { useMemo, useState } from 'react';
import { ApiError } from '../../api/client';
import { useRecordSaveMutation } from '../../data/records/record-save';
import { ErrorBox } from '../../components/error-box';
import { JsonEditor } from '../../components/json-field';
import { tryParse } from '../../lib/json';
import { TextField } from '../../components/text-field';
import type { CollectionDef } from '../../../../server/shared/models';
import { FieldInput, fromDraft, toDraft } from './field-input';
import type { Rec } from './records-grid';

const SYSTEM = new Set(['_id', '_owner', 'createdAt', 'updatedAt']);

export function RecordForm({ appId, def, record, onSaved }: { appId: string; def: CollectionDef; record?: Rec; onSaved: (r: Rec) => void }) {
  const initial = useMemo(() => Object.fromEntries(def.fields.map((f) => [f._id, toDraft(f, record?.[f._id])])), [def, record]);
  const initialExtra = useMemo(() => {
    const extra = Object.fromEntries(Object.entries(record ?? {}).filter(([k]) => !SYSTEM.has(k) && !def.fields.some((f) => f._id === k)));
    return Object.keys(extra).length || !def.fields.length ? JSON.stringify(extra, null, 2) : '{}';
  }, [def, record]);
  const [drafts, setDrafts] = useState<Record<string, string>>(initial);
  const [extra, setExtra] = useState(initialExtra);
  const [newId, setNewId] = useState('');
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});

  const save = useRecordSaveMutation(appId, def._id, record?._id, { onSuccess: onSaved });

  const submit = () => {
    const errors: Record<string, string> = {};
    const body: Record<string, unknown> = {};
    for (const f of def.fields) {
      const changed = drafts[f._id] !== initial[f._id];
      if (record && !changed) continue;
      const out = fromDraft(f, drafts[f._id]);
      if (out.error) errors[f._id] = out.error;
      else if (out.value !== undefined) body[f._id] = out.value;
      else if (record && initial[f._id] !== '') body[f._id] = null; // cleared
    }
    const parsedExtra = tryParse(extra);
    if (parsedExtra.error || (parsedExtra.value !== undefined && (typeof parsedExtra.value !== 'object' || parsedExtra.value === null || Array.isArray(parsedExtra.value)))) {
      errors.__extra = parsedExtra.error ? `Not valid JSON: ${parsedExtra.error}` : 'Must be a JSON object';
    } else {
      const next = (parsedExtra.value ?? {}) as Record<string, unknown>;
      const before = (tryParse(initialExtra).value ?? {}) as Record<string, unknown>;
      for (const [k, v] of Object.entries(next)) if (!record || JSON.stringify(before[k]) !== JSON.stringify(v)) body[k] = v;
      if (record) for (const k of Object.keys(before)) if (!(k in next)) body[k] = null;
    }
    if (!record && newId) body._id = newId;
    setLocalErrors(errors);
    if (Object.keys(errors).length) return;
    save.mutate(body);
  };

  const apiErrors = save.error instanceof ApiError ? save.error.fieldErrors() : {};
  const errorAt = (field: string) => localErrors[field] ?? apiErrors[field] ?? Object.entries(apiErrors).find(([k]) => k.startsWith(`${field}.`) || k.startsWith(`${field}[`))?.[1];
  const knownField = (k: string) => k === '_id' || def.fields.some((f) => k === f._id || k.startsWith(`${f._id}.`) || k.startsWith(`${f._id}[`));
  const otherErrors = Object.entries(apiErrors).filter(([k]) => !knownField(k));

  return (
    <form className="form" onSubmit={(e) => { e.preventDefault(); submit(); }} noValidate>
      {record ? <p className="muted small">Id <code>{record._id}</code>{record._owner ? <> · owner <code>{String(record._owner)}</code></> : null}</p>
        : <TextField label="Id" value={newId} onChange={setNewId} error={apiErrors._id} hint="Optional: empty gives a generated id." />}
      {def.fields.map((f) => (
        <FieldInput key={f._id} appId={appId} field={f} value={drafts[f._id] ?? ''} error={errorAt(f._id)}
          onChange={(v) => setDrafts((d) => ({ ...d, [f._id]: v }))} />
      ))}
      <div className="field" style={{ display: 'flex', flexDirection: 'column', gap: 4 }}>
        <span style={{ fontWeight: 500 }} id="extra-label">{def.fields.length ? 'Other properties (JSON object)' : 'Record (JSON object)'}</span>
        <JsonEditor label={def.fields.length ? 'Other properties (JSON object)' : 'Record (JSON object)'} value={extra} onChange={setExtra} minHeight={def.fields.length ? 60 : 160} />
        <span className="hint">{def.fields.length ? 'Properties outside the schema, stored as given.' : 'This collection is schemaless: records keep whatever they are given.'}</span>
        {localErrors.__extra ? <span className="field-error">{localErrors.__extra}</span> : null}
        {otherErrors.map(([k, v]) => <span key={k} className="field-error"><code>{k}</code>: {v}</span>)}
      </div>
      <ErrorBox error={save.error} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={save.isPending}>{record ? 'Save record' : 'Create record'}</button>
      </div>
    </form>
  );
}

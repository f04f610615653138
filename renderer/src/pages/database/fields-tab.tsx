// A collection's fields: every type and option (required, unique, default, enum values,
// reference target, bounds), added, edited and deleted.
import { useState } from 'react';
import { ApiError } from '../../api/client';
import { useCollectionIdsQuery } from '../../data/collections/collection-ids-query';
import { useSchemaSaveMutation } from '../../data/collections/schema-item-save-mutation';
import { useSchemaDeleteMutation } from '../../data/collections/schema-item-delete-mutation';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import { TextField } from '../../components/text-field';
import { tryParse } from '../../lib/json';
import { FIELD_TYPES, type CollectionDef, type FieldDef, type FieldType } from '../../../../server/shared/models';

export function FieldsTab({ appId, def }: { appId: string; def: CollectionDef }) {
  const [editing, setEditing] = useState<FieldDef | 'new' | null>(null);
  const del = useSchemaDeleteMutation(appId, def._id, 'fields');
  return (
    <div className="stack">
      <div className="row">
        <p className="muted" style={{ flex: 1, margin: 0 }}>{def.fields.length ? 'Records are checked against these fields; properties outside them are stored as given.' : 'No field: the collection is schemaless.'}</p>
        <button type="button" className="primary" onClick={() => setEditing('new')}>Add field</button>
      </div>
      <ErrorBox error={del.error} />
      <div className="table-wrap">
        <table className="list">
          <thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Rules</th><th scope="col">Default</th><th scope="col">Actions</th></tr></thead>
          <tbody>
            {def.fields.map((f) => (
              <tr key={f._id}>
                <td><code>{f._id}</code></td>
                <td>{f.name}</td>
                <td><span className="badge">{f.type}</span>{f.type === 'reference' ? <span className="muted"> → {String(f.options?.collection)}</span> : null}</td>
                <td className="muted small">{[f.required && 'required', f.unique && 'unique', f.options?.values && `values: ${f.options.values.join(', ')}`,
                  f.options?.min !== undefined && `min ${f.options.min}`, f.options?.max !== undefined && `max ${f.options.max}`,
                  f.options?.minLength !== undefined && `minLength ${f.options.minLength}`, f.options?.maxLength !== undefined && `maxLength ${f.options.maxLength}`].filter(Boolean).join(' · ')}</td>
                <td className="mono small">{f.default === undefined ? '' : JSON.stringify(f.default)}</td>
                <td><div className="row">
                  <button type="button" className="small" onClick={() => setEditing(f)} aria-label={`Edit field ${f._id}`}>Edit</button>
                  <button type="button" className="small" onClick={() => { if (confirm(`Delete field ${f._id}? Stored values stay in the records.`)) del.mutate(f._id); }} aria-label={`Delete field ${f._id}`}>Delete</button>
                </div></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Dialog open={!!editing} title={editing === 'new' ? 'Add field' : `Edit field ${editing?._id ?? ''}`} onClose={() => setEditing(null)}>
        {editing ? <FieldForm key={editing === 'new' ? 'new' : editing._id} appId={appId} def={def} field={editing === 'new' ? undefined : editing} onDone={() => setEditing(null)} /> : null}
      </Dialog>
    </div>
  );
}

function FieldForm({ appId, def, field, onDone }: { appId: string; def: CollectionDef; field?: FieldDef; onDone: () => void }) {
  const [f, setF] = useState({
    _id: field?._id ?? '', name: field?.name ?? '', type: (field?.type ?? 'string') as FieldType,
    required: !!field?.required, unique: !!field?.unique,
    default: field?.default === undefined ? '' : JSON.stringify(field.default),
    values: (field?.options?.values ?? []).join(', '), collection: String(field?.options?.collection ?? ''),
    min: field?.options?.min?.toString() ?? '', max: field?.options?.max?.toString() ?? '',
    minLength: field?.options?.minLength?.toString() ?? '', maxLength: field?.options?.maxLength?.toString() ?? '',
  });
  const [localError, setLocalError] = useState<Record<string, string>>({});
  const collections = useCollectionIdsQuery(appId, { enabled: f.type === 'reference' });
  const save = useSchemaSaveMutation(appId, def._id, 'fields', field?._id, { onSuccess: () => onDone() });
  const set = <K extends keyof typeof f>(k: K) => (v: (typeof f)[K]) => setF((x) => ({ ...x, [k]: v }));
  const submit = () => {
    const errors: Record<string, string> = {};
    const options: Record<string, unknown> = {};
    if (f.type === 'enum') {
      const values = f.values.split(',').map((s) => s.trim()).filter(Boolean);
      if (!values.length) errors['options.values'] = 'List at least one value, separated by commas';
      options.values = values;
    }
    if (f.type === 'reference') {
      if (!f.collection) errors['options.collection'] = 'Choose the collection it points at';
      options.collection = f.collection;
    }
    for (const k of ['min', 'max', 'minLength', 'maxLength'] as const) {
      if (f[k] === '') continue;
      const n = Number(f[k]);
      if (!Number.isFinite(n)) errors[`options.${k}`] = 'Must be a number'; else options[k] = n;
    }
    let dflt: unknown;
    if (f.default.trim()) {
      const parsed = tryParse(f.default);
      if (parsed.error) errors.default = 'Write the default as JSON: "text", 42, true, ["a"]...'; else dflt = parsed.value;
    }
    setLocalError(errors);
    if (Object.keys(errors).length) return;
    save.mutate({
      ...(field ? {} : f._id ? { _id: f._id } : {}),
      ...(f.name ? { name: f.name } : {}), type: f.type, required: f.required, unique: f.unique,
      ...(dflt !== undefined ? { default: dflt } : field?.default !== undefined ? { default: null } : {}),
      ...(Object.keys(options).length ? { options } : {}),
    });
  };
  const api = save.error instanceof ApiError ? save.error.fieldErrors() : {};
  const err = (k: string) => localError[k] ?? api[k];
  const numeric = f.type === 'number' || f.type === 'integer';
  const textual = f.type === 'string' || f.type === 'email' || f.type === 'url';
  return (
    <form className="form" onSubmit={(e) => { e.preventDefault(); submit(); }}>
      {field ? null : <TextField label="Id" value={f._id} onChange={set('_id')} error={err('_id')} required hint="The property name in records (letters, digits, _ and -)." />}
      <TextField label="Name" value={f.name} onChange={set('name')} error={err('name')} hint="A label; defaults to the id." />
      <label className="field">Type
        <select value={f.type} onChange={(e) => set('type')(e.target.value as FieldType)}>
          {FIELD_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
        </select>
        {err('type') ? <span className="field-error">{err('type')}</span> : null}
      </label>
      <div className="row">
        <label className="check"><input type="checkbox" checked={f.required} onChange={(e) => set('required')(e.target.checked)} /> Required</label>
        <label className="check"><input type="checkbox" checked={f.unique} onChange={(e) => set('unique')(e.target.checked)} /> Unique</label>
      </div>
      {f.type === 'enum' ? <TextField label="Allowed values" value={f.values} onChange={set('values')} error={err('options.values')} hint="Separated by commas." required /> : null}
      {f.type === 'reference' ? (
        <label className="field">Points at collection *
          <select value={f.collection} onChange={(e) => set('collection')(e.target.value)} aria-invalid={err('options.collection') ? true : undefined}>
            <option value="">(choose)</option>
            {collections.data?.map((c) => <option key={c} value={c}>{c}</option>)}
          </select>
          {err('options.collection') ? <span className="field-error">{err('options.collection')}</span> : null}
        </label>
      ) : null}
      {numeric ? <div className="row"><TextField label="Minimum" value={f.min} onChange={set('min')} error={err('options.min')} /><TextField label="Maximum" value={f.max} onChange={set('max')} error={err('options.max')} /></div> : null}
      {textual ? <div className="row"><TextField label="Minimum length" value={f.minLength} onChange={set('minLength')} error={err('options.minLength')} /><TextField label="Maximum length" value={f.maxLength} onChange={set('maxLength')} error={err('options.maxLength')} /></div> : null}
      <TextField label="Default (JSON)" value={f.default} onChange={set('default')} error={err('default')} hint='Given to new records without this field: "text", 42, true, [] ...' />
      <ErrorBox error={save.error} />
      <div className="form-actions"><button type="submit" className="primary" disabled={save.isPending}>{field ? 'Save field' : 'Add field'}</button></div>
    </form>
  );
}

// A collection's indexes: create (fields, unique) and delete; a unique index that existing
// records already break is explained.
import { useState } from 'react';
import { ApiError } from '../../api/client';
import { useSchemaSaveMutation } from '../../data/collections/schema-item-save-mutation';
import { useSchemaDeleteMutation } from '../../data/collections/schema-item-delete-mutation';
import { ErrorBox } from '../../components/error-box';
import { TextField } from '../../components/text-field';
import type { CollectionDef } from '../../../../server/shared/models';

export function IndexesTab({ appId, def }: { appId: string; def: CollectionDef }) {
  const [fields, setFields] = useState('');
  const [unique, setUnique] = useState(false);
  const create = useSchemaSaveMutation(appId, def._id, 'indexes', undefined, { onSuccess: () => { setFields(''); setUnique(false); } });
  const del = useSchemaDeleteMutation(appId, def._id, 'indexes');
  const conflict = create.error instanceof ApiError && create.error.code === 'CONFLICT';
  return (
    <div className="stack">
      <p className="muted">Indexes speed up filters and sorts on their fields; a unique index refuses a second record with the same values (409).</p>
      <form className="row card" style={{ alignItems: 'flex-end' }} onSubmit={(e) => { e.preventDefault(); create.mutate({ fields: fields.split(',').map((s) => s.trim()).filter(Boolean), unique }); }}>
        <div style={{ flex: 1, minWidth: 220 }}><TextField label="Fields" value={fields} onChange={setFields} hint="One or more field paths, separated by commas." error={create.error instanceof ApiError ? create.error.fieldErrors().fields : undefined} /></div>
        <label className="check"><input type="checkbox" checked={unique} onChange={(e) => setUnique(e.target.checked)} /> Unique</label>
        <button type="submit" className="primary" disabled={!fields.trim() || create.isPending}>Create index</button>
      </form>
      {conflict ? (
        <div className="error" role="alert">
          <strong>Existing records break this unique index.</strong> Two or more records already share the same value{fields.includes(',') ? 's' : ''} of <code>{fields}</code>,
          so the index cannot hold. Filter the records by that value, change or delete the duplicates, then create the index again.
          <div className="small">({(create.error as ApiError).message})</div>
        </div>
      ) : <ErrorBox error={create.error} />}
      <ErrorBox error={del.error} />
      <table className="list">
        <thead><tr><th scope="col">Id</th><th scope="col">Fields</th><th scope="col">Unique</th><th scope="col">Actions</th></tr></thead>
        <tbody>
          {def.indexes.map((ix) => (
            <tr key={ix._id}>
              <td><code>{ix._id}</code></td>
              <td className="mono">{ix.fields.join(', ')}</td>
              <td>{ix.unique ? 'unique' : ''}</td>
              <td><button type="button" className="small" onClick={() => del.mutate(ix._id)} aria-label={`Delete index ${ix._id}`}>Delete</button></td>
            </tr>
          ))}
          {def.indexes.length === 0 ? <tr><td colSpan={4} className="muted">No index yet.</td></tr> : null}
        </tbody>
      </table>
    </div>
  );
}

// `/app/{app_id}/database`: collections — create, edit name and access, delete, open.
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import { Pager } from '../../components/pager';
import { TextField } from '../../components/text-field';
import { useCollectionsQuery } from '../../data/collections/collections-query';
import { useCollectionSaveMutation } from '../../data/collections/collection-save-mutation';
import { useCollectionDeleteMutation } from '../../data/collections/collection-delete-mutation';
import type { CollectionDef } from '../../data/types';
import { AccessSettings, settingBody, settingDraft, type SettingDraft } from './access-settings';

export function CollectionsPage() {
  const { appId = '' } = useParams();
  const [offset, setOffset] = useState(0);
  const [editing, setEditing] = useState<CollectionDef | 'new' | null>(null);
  const [deleting, setDeleting] = useState<CollectionDef | null>(null);
  const limit = 50;
  const list = useCollectionsQuery(appId, { limit, offset });
  return (
    <div>
      <div className="page-head">
        <div>
          <h1>Database</h1>
          <p className="muted">Collections of records. A collection without fields is schemaless: records keep whatever they are given.</p>
        </div>
        <button type="button" className="primary" onClick={() => setEditing('new')}>New collection</button>
      </div>
      <ErrorBox error={list.error} />
      <div className="table-wrap">
        <table className="list">
          <thead><tr><th scope="col">Collection</th><th scope="col">Name</th><th scope="col">Fields</th><th scope="col">Access (read / create / change / delete)</th><th scope="col">Actions</th></tr></thead>
          <tbody>
            {list.data?.data.map((c) => (
              <tr key={c._id}>
                <td><Link to={`/app/${appId}/database/${c._id}`}><code>{c._id}</code></Link></td>
                <td>{c.name}</td>
                <td>{c.fields.length || <span className="muted">schemaless</span>}</td>
                <td className="muted small">{c.setting.read} / {c.setting.write} / {c.setting.update} / {c.setting.remove ?? c.setting.update}</td>
                <td>
                  <div className="row">
                    <button type="button" className="small" onClick={() => setEditing(c)} aria-label={`Edit ${c._id}`}>Edit</button>
                    <button type="button" className="small" onClick={() => setDeleting(c)} aria-label={`Delete ${c._id}`}>Delete</button>
                  </div>
                </td>
              </tr>
            ))}
            {list.data?.data.length === 0 ? <tr><td colSpan={5} className="muted">No collection yet. Create one, or import a dump on the workspaces page.</td></tr> : null}
          </tbody>
        </table>
      </div>
      {list.data ? <Pager total={list.data.meta.total} offset={offset} limit={limit} onOffset={setOffset} label="Collection pages" /> : null}
      <CollectionDialog appId={appId} collection={editing} onClose={() => setEditing(null)} />
      <DeleteCollectionDialog appId={appId} collection={deleting} onClose={() => setDeleting(null)} />
    </div>
  );
}

export function CollectionDialog({ appId, collection, onClose }: { appId: string; collection: CollectionDef | 'new' | null; onClose: () => void }) {
  const isNew = collection === 'new';
  const existing = collection && collection !== 'new' ? collection : undefined;
  return (
    <Dialog open={!!collection} title={isNew ? 'New collection' : `Edit ${existing?._id}`} onClose={onClose}>
      {collection ? <CollectionForm key={existing?._id ?? 'new'} appId={appId} existing={existing} onDone={onClose} /> : null}
    </Dialog>
  );
}

function CollectionForm({ appId, existing, onDone }: { appId: string; existing?: CollectionDef; onDone: () => void }) {
  const navigate = useNavigate();
  const [id, setId] = useState(existing?._id ?? '');
  const [name, setName] = useState(existing?.name ?? '');
  const [setting, setSetting] = useState<SettingDraft>(settingDraft(existing?.setting));
  const save = useCollectionSaveMutation(appId, {
    onSuccess: (c) => {
      onDone();
      if (!existing) navigate(`/app/${appId}/database/${c._id}?tab=fields`);
    },
  });
  const errs = save.error instanceof ApiError ? save.error.fieldErrors() : {};
  return (
    <form className="form" onSubmit={(e) => {
      e.preventDefault();
      save.mutate(existing
        ? { id: existing._id, body: { name: name || existing._id, setting: settingBody(setting) } }
        : { body: { _id: id, ...(name ? { name } : {}), setting: settingBody(setting) } });
    }}>
      {existing ? null : <TextField label="Id" required value={id} onChange={setId} error={errs._id} hint="Letters, digits, _ and -, starting with a letter: /database/<id> in the API." />}
      <TextField label="Name" value={name} onChange={setName} error={errs.name} hint="Shown in the console; defaults to the id." />
      <AccessSettings value={setting} onChange={setSetting} errors={errs} />
      <ErrorBox error={save.error} />
      <div className="form-actions"><button type="submit" className="primary" disabled={save.isPending || (!existing && !id)}>{existing ? 'Save' : 'Create collection'}</button></div>
    </form>
  );
}

export function DeleteCollectionDialog({ appId, collection, onClose, onDeleted }: { appId: string; collection: CollectionDef | null; onClose: () => void; onDeleted?: () => void }) {
  const [typed, setTyped] = useState('');
  const del = useCollectionDeleteMutation(appId, {
    onSuccess: () => {
      setTyped(''); onClose(); onDeleted?.();
    },
  });
  const close = () => { setTyped(''); del.reset(); onClose(); };
  return (
    <Dialog open={!!collection} title={`Delete ${collection?._id ?? ''}`} onClose={close}>
      <form className="form" onSubmit={(e) => { e.preventDefault(); del.mutate(collection!._id); }}>
        <p>Deletes the collection with <strong>all its records</strong>, fields, views and indexes.</p>
        <label className="field">Type <code>{collection?._id}</code> to confirm
          <input value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" />
        </label>
        <ErrorBox error={del.error} />
        <div className="form-actions"><button type="submit" className="danger" disabled={typed !== collection?._id || del.isPending}>Delete collection</button></div>
      </form>
    </Dialog>
  );
}

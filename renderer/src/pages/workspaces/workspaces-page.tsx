// `/`: the workspaces of this server — create, open, export, import, reset, snapshots, delete.
import { useState } from 'react';
import { Link } from 'react-router';
import { ErrorBox } from '../../components/error-box';
import { Dialog } from '../../components/dialog';
import { Pager } from '../../components/pager';
import { useWorkspacesQuery } from '../../data/workspaces/workspaces-query';
import { exportWorkspace } from '../../data/workspaces/workspace-export';
import { useWorkspaceResetMutation } from '../../data/workspaces/workspace-reset-mutation';
import { useWorkspaceDeleteMutation } from '../../data/workspaces/workspace-delete-mutation';
import { CreateWorkspaceDialog } from './create-dialog';
import { ImportDialog } from './import-dialog';
import { SnapshotsDialog } from './snapshots-dialog';

type Action = { kind: 'import' | 'reset' | 'snapshots' | 'delete'; id: string } | { kind: 'create' } | null;

export function WorkspacesPage() {
  const [offset, setOffset] = useState(0);
  const limit = 50;
  const [action, setAction] = useState<Action>(null);
  const [exportError, setExportError] = useState<unknown>(null);
  const list = useWorkspacesQuery({ limit, offset });
  const close = () => setAction(null);
  return (
    <div>
      <div className="page-head">
        <div>
          <h1>Workspaces</h1>
          <p className="muted">Each workspace is a separate backend: its own collections, users, files and API at <code>/api/app/&lt;id&gt;</code>.</p>
        </div>
        <button type="button" className="primary" onClick={() => setAction({ kind: 'create' })}>New workspace</button>
      </div>
      <ErrorBox error={list.error ?? exportError} />
      <div className="table-wrap">
        <table className="list">
          <thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
          <tbody>
            {list.data?.data.map((w) => (
              <tr key={w._id}>
                <td><Link to={`/app/${w._id}`}><code>{w._id}</code></Link></td>
                <td>{w.name}</td>
                <td className="muted">{new Date(w.createdAt).toLocaleString()}</td>
                <td>
                  <div className="row">
                    <Link className="button small" to={`/app/${w._id}/database`} aria-label={`Open ${w._id}'s database`}>Database</Link>
                    <button type="button" className="small" aria-label={`Export ${w._id}`} onClick={() => {
                      setExportError(null);
                      exportWorkspace(w._id).catch(setExportError);
                    }}>Export</button>
                    <button type="button" className="small" aria-label={`Import into ${w._id}`} onClick={() => setAction({ kind: 'import', id: w._id })}>Import</button>
                    <button type="button" className="small" aria-label={`Snapshots of ${w._id}`} onClick={() => setAction({ kind: 'snapshots', id: w._id })}>Snapshots</button>
                    <button type="button" className="small" aria-label={`Reset ${w._id}`} onClick={() => setAction({ kind: 'reset', id: w._id })}>Reset</button>
                    <button type="button" className="small" aria-label={`Delete ${w._id}`} onClick={() => setAction({ kind: 'delete', id: w._id })}>Delete</button>
                  </div>
                </td>
              </tr>
            ))}
            {list.data && list.data.data.length === 0 ? <tr><td colSpan={4} className="muted">No workspace yet.</td></tr> : null}
          </tbody>
        </table>
      </div>
      {list.data ? <Pager total={list.data.meta.total} offset={offset} limit={limit} onOffset={setOffset} label="Workspace pages" /> : null}

      <CreateWorkspaceDialog open={action?.kind === 'create'} onClose={close} />
      <ImportDialog appId={action && 'id' in action && action.kind === 'import' ? action.id : undefined} onClose={close} />
      <SnapshotsDialog appId={action && 'id' in action && action.kind === 'snapshots' ? action.id : undefined} onClose={close} />
      <ResetDialog appId={action && 'id' in action && action.kind === 'reset' ? action.id : undefined} onClose={close} />
      <DeleteDialog appId={action && 'id' in action && action.kind === 'delete' ? action.id : undefined} onClose={close} />
    </div>
  );
}

function ResetDialog({ appId, onClose }: { appId?: string; onClose: () => void }) {
  const [keepSchema, setKeepSchema] = useState(true);
  const reset = useWorkspaceResetMutation({ onSuccess: () => onClose() });
  return (
    <Dialog open={!!appId} title={`Reset ${appId ?? ''}`} onClose={() => { reset.reset(); onClose(); }}>
      <form className="form" onSubmit={(e) => { e.preventDefault(); reset.mutate({ appId: appId!, keepSchema }); }}>
        <p>Removes records, users (all but the first admin), files, chats and logs of <code>{appId}</code>.</p>
        <label className="check"><input type="checkbox" checked={keepSchema} onChange={(e) => setKeepSchema(e.target.checked)} /> Keep the schema (collections, fields, views, indexes)</label>
        <ErrorBox error={reset.error} />
        <div className="form-actions"><button type="submit" className="danger" disabled={reset.isPending}>Reset workspace</button></div>
      </form>
    </Dialog>
  );
}

function DeleteDialog({ appId, onClose }: { appId?: string; onClose: () => void }) {
  const [typed, setTyped] = useState('');
  const del = useWorkspaceDeleteMutation({ onSuccess: () => { setTyped(''); onClose(); } });
  return (
    <Dialog open={!!appId} title={`Delete ${appId ?? ''}`} onClose={() => { setTyped(''); del.reset(); onClose(); }}>
      <form className="form" onSubmit={(e) => { e.preventDefault(); del.mutate(appId!); }}>
        <p>This deletes the workspace and <strong>all its data</strong>: collections, records, users, files, chats, webhooks, scenarios, secrets. It cannot be undone.</p>
        <label className="field">Type <code>{appId}</code> to confirm
          <input value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" />
        </label>
        <ErrorBox error={del.error} />
        <div className="form-actions"><button type="submit" className="danger" disabled={typed !== appId || del.isPending}>Delete workspace</button></div>
      </form>
    </Dialog>
  );
}

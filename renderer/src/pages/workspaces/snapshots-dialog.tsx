// A workspace's snapshots: take one, list them, restore one (a fast reset between tests).
import { useState } from 'react';
import { ApiError } from '../../api/client';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import { TextField } from '../../components/text-field';
import { useSnapshotsQuery } from '../../data/workspaces/snapshots-query';
import { useSnapshotTakeMutation } from '../../data/workspaces/snapshot-take-mutation';
import { useSnapshotRestoreMutation } from '../../data/workspaces/snapshot-restore-mutation';

export function SnapshotsDialog({ appId, onClose }: { appId?: string; onClose: () => void }) {
  const [name, setName] = useState('');
  const [restored, setRestored] = useState<string | null>(null);
  const list = useSnapshotsQuery(appId);
  const take = useSnapshotTakeMutation({ onSuccess: () => setName('') });
  const restore = useSnapshotRestoreMutation({ onSuccess: (_d, snap) => setRestored(snap.name) });
  const close = () => { setName(''); setRestored(null); take.reset(); restore.reset(); onClose(); };
  return (
    <Dialog open={!!appId} title={`Snapshots of ${appId ?? ''}`} onClose={close}>
      <div className="stack">
        <form className="row" onSubmit={(e) => { e.preventDefault(); take.mutate({ appId: appId!, name }); }} style={{ alignItems: 'flex-end' }}>
          <div style={{ flex: 1 }}>
            <TextField label="Snapshot name" value={name} onChange={setName} error={take.error instanceof ApiError ? take.error.fieldErrors().name : undefined} hint="Taking a name that exists replaces that snapshot." />
          </div>
          <button type="submit" className="primary" disabled={!name || take.isPending}>Take snapshot</button>
        </form>
        <ErrorBox error={list.error ?? take.error ?? restore.error} />
        {restored ? <div className="notice" role="status">Restored <code>{restored}</code>.</div> : null}
        <table className="list">
          <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Contents</th><th scope="col">Actions</th></tr></thead>
          <tbody>
            {list.data?.data.map((s) => (
              <tr key={s.name}>
                <td><code>{s.name}</code></td>
                <td className="muted">{new Date(s.createdAt).toLocaleString()}</td>
                <td className="muted">{s.collections ?? '?'} collections, {s.records ?? '?'} records</td>
                <td><button type="button" className="small" onClick={() => restore.mutate({ appId: appId!, name: s.name })} disabled={restore.isPending} aria-label={`Restore ${s.name}`}>Restore</button></td>
              </tr>
            ))}
            {list.data?.data.length === 0 ? <tr><td colSpan={4} className="muted">No snapshot yet.</td></tr> : null}
          </tbody>
        </table>
      </div>
    </Dialog>
  );
}

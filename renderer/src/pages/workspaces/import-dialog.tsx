// Import a dump file into a workspace (replaces its data), with upload progress; a refused dump
// shows the JSON path of its first problem.
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { importWorkspace, invalidateWorkspace } from '../../data/workspaces/workspace-import';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';

export function ImportDialog({ appId, onClose }: { appId?: string; onClose: () => void }) {
  const qc = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<Record<string, unknown> | null>(null);
  const close = () => { setFile(null); setProgress(null); setError(null); setDone(null); onClose(); };
  const start = async () => {
    if (!file || !appId) return;
    setError(null); setDone(null); setProgress(0);
    try {
      setDone(await importWorkspace(appId, file, setProgress));
      void invalidateWorkspace(qc, appId);
    } catch (e) {
      setError(e);
      setProgress(null);
    }
  };
  return (
    <Dialog open={!!appId} title={`Import into ${appId ?? ''}`} onClose={close}>
      <form className="form" onSubmit={(e) => { e.preventDefault(); void start(); }}>
        <p>Loads a dump made by <em>Export</em> or <code>homebase export</code>. It <strong>replaces</strong> the workspace's data; a dump with a problem is refused whole and nothing changes.</p>
        <label className="field">Dump file (JSON)
          <input type="file" accept="application/json,.json" onChange={(e) => { setFile(e.target.files?.[0] ?? null); setError(null); setDone(null); }} />
        </label>
        {progress !== null ? (
          <label className="field">Upload
            <progress className="progress" max={1} value={progress} />
            <span className="hint">{Math.round(progress * 100)}%{progress >= 1 && !done && !error ? ' — checking and loading…' : ''}</span>
          </label>
        ) : null}
        <ErrorBox error={error} />
        {done ? <div className="notice" role="status">Imported: {Object.entries(done).map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`).join(', ') || 'done'}.</div> : null}
        <div className="form-actions">
          {done ? <button type="button" onClick={close}>Close</button> : <button type="submit" className="primary" disabled={!file || (progress !== null && !error)}>Import</button>}
        </div>
      </form>
    </Dialog>
  );
}

// `/app/{app_id}/storage`: files with paging and search; drag-and-drop resumable uploads with
// progress, pause and resume; preview of images, text and JSON; download; delete (several at once).
import { useEffect, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import { Pager } from '../../components/pager';
import { keys } from '../../data/keys';
import { useFilesQuery } from '../../data/files/files-query';
import { useFilesDeleteMutation } from '../../data/files/files-delete-mutation';
import { useDownloadTokenQuery } from '../../data/files/download-token-query';
import { useFilePreviewQuery } from '../../data/files/file-preview-query';
import type { FileObj } from '../../data/types';
import { unfinishedUploads, useUploads } from './uploads';

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function StoragePage() {
  const { appId = '' } = useParams();
  const qc = useQueryClient();
  const [offset, setOffset] = useState(0);
  // `?search=` (a file label in the records grid links here) starts the search.
  const [params] = useSearchParams();
  const [search, setSearch] = useState(() => params.get('search') ?? '');
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [preview, setPreview] = useState<FileObj | null>(null);
  const [dragging, setDragging] = useState(false);
  const [unfinished, setUnfinished] = useState<Array<{ name: string; size: number; since: string }>>([]);
  const limit = 25;
  const list = useFilesQuery(appId, { limit, offset, search });
  const refresh = () => { void qc.invalidateQueries({ queryKey: keys.files(appId) }); void unfinishedUploads().then(setUnfinished); };
  const uploads = useUploads(appId, refresh);
  useEffect(() => { void unfinishedUploads().then(setUnfinished); }, []);
  const token = useDownloadTokenQuery(appId);
  const del = useFilesDeleteMutation(appId, { onSettled: () => { setSelected(new Set()); void unfinishedUploads().then(setUnfinished); } });
  const rows = list.data?.data ?? [];
  const withToken = (f: FileObj) => `${f.url}?token=${encodeURIComponent(token.data ?? '')}`;
  return (
    <div className="stack">
      <div>
        <h1>Storage</h1>
        <p className="muted">Files of this workspace. Uploads are resumable (tus): pause them, or reload the page and add the same file again to continue.</p>
      </div>
      <div
        className={`card dropzone${dragging ? ' dragging' : ''}`}
        onDragOver={(e) => { e.preventDefault(); setDragging(true); }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => { e.preventDefault(); setDragging(false); void uploads.add([...e.dataTransfer.files]); }}
      >
        <label className="field" style={{ alignItems: 'center', textAlign: 'center' }}>
          <span>Drop files here, or choose them</span>
          <input type="file" multiple onChange={(e) => { void uploads.add([...(e.target.files ?? [])]); e.target.value = ''; }} />
        </label>
      </div>
      {unfinished.length ? (
        <div className="notice">
          <strong>Unfinished uploads from earlier:</strong> {unfinished.map((u) => `${u.name} (${formatBytes(u.size)})`).join(', ')}. Add the same file again to resume it.
        </div>
      ) : null}
      {uploads.items.length ? (
        <ul className="stack" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label="Uploads">
          {uploads.items.map((u) => (
            <li key={u.id} className="card row" aria-label={`Upload of ${u.file.name}`}>
              <strong style={{ minWidth: 160 }}>{u.file.name}</strong>
              <progress className="progress" style={{ flex: 1, minWidth: 120 }} max={u.total || 1} value={u.sent} aria-label={`Progress of ${u.file.name}`} />
              <span className="muted small">{formatBytes(u.sent)} / {formatBytes(u.total)} · {u.state}{u.resumed ? ' (resumed)' : ''}</span>
              {u.state === 'uploading' ? <button type="button" className="small" onClick={() => uploads.pause(u)}>Pause</button> : null}
              {u.state === 'paused' || u.state === 'failed' ? <button type="button" className="small" onClick={() => uploads.resume(u)}>Resume</button> : null}
              {u.state !== 'done' ? <button type="button" className="small" onClick={() => uploads.cancel(u)}>Cancel</button> : null}
              {u.error ? <span className="field-error">{u.error}</span> : null}
            </li>
          ))}
          <li><button type="button" className="small" onClick={uploads.clearDone}>Clear finished</button></li>
        </ul>
      ) : null}
      <div className="toolbar" role="search">
        <label className="check">Search by name <input type="search" value={search} onChange={(e) => { setSearch(e.target.value); setOffset(0); }} /></label>
        <span style={{ flex: 1 }} />
        {selected.size ? <button type="button" className="small danger" onClick={() => del.mutate([...selected])}>Delete {selected.size} selected</button> : null}
      </div>
      <ErrorBox error={list.error ?? del.error} />
      <table className="list">
        <thead><tr>
          <th scope="col"><input type="checkbox" aria-label="Select all files of this page" checked={rows.length > 0 && rows.every((f) => selected.has(f._id))}
            onChange={(e) => setSelected(new Set(e.target.checked ? rows.map((f) => f._id) : []))} /></th>
          <th scope="col">Name</th><th scope="col">Size</th><th scope="col">Type</th><th scope="col">Uploaded</th><th scope="col">Actions</th>
        </tr></thead>
        <tbody>
          {rows.map((f) => (
            <tr key={f._id}>
              <td><input type="checkbox" aria-label={`Select ${f.name}`} checked={selected.has(f._id)} onChange={(e) => {
                const n = new Set(selected); if (e.target.checked) n.add(f._id); else n.delete(f._id); setSelected(n);
              }} /></td>
              <td>{f.name}<div className="muted small mono">{f._id}</div></td>
              <td>{formatBytes(f.size)}</td>
              <td className="muted">{f.type}</td>
              <td className="muted small">{new Date(f.createdAt).toLocaleString()}</td>
              <td><div className="row">
                <button type="button" className="small" onClick={() => setPreview(f)} aria-label={`Preview ${f.name}`}>Preview</button>
                <a className="button small" href={withToken(f)} download={f.name} aria-label={`Download ${f.name}`}>Download</a>
                <button type="button" className="small" onClick={() => del.mutate([f._id])} aria-label={`Delete ${f.name}`}>Delete</button>
              </div></td>
            </tr>
          ))}
          {list.data && rows.length === 0 ? <tr><td colSpan={6} className="muted">No file.</td></tr> : null}
        </tbody>
      </table>
      {list.data ? <Pager total={list.data.meta.total} offset={offset} limit={limit} onOffset={setOffset} label="File pages" /> : null}
      <Dialog open={!!preview} side title={preview?.name ?? ''} onClose={() => setPreview(null)}>
        {preview ? <Preview appId={appId} file={preview} src={withToken(preview)} /> : null}
      </Dialog>
    </div>
  );
}

const TEXTUAL = /^(text\/|application\/(json|xml|javascript|x-ndjson|yaml))/;

function Preview({ appId, file, src }: { appId: string; file: FileObj; src: string }) {
  const text = useFilePreviewQuery(appId, file, src, TEXTUAL.test(file.type) || /\.(json|txt|md|csv|log)$/i.test(file.name));
  return (
    <div className="stack">
      <dl className="kv"><dt>Size</dt><dd>{formatBytes(file.size)}</dd><dt>Type</dt><dd>{file.type}</dd><dt>Id</dt><dd><code>{file._id}</code></dd></dl>
      {file.type.startsWith('image/') ? <img src={src} alt={file.name} style={{ maxWidth: '100%', border: '1px solid var(--border)' }} />
        : text.data !== undefined ? <pre aria-label={`Contents of ${file.name}`}>{text.data}{file.size > 65536 ? '\n…' : ''}</pre>
          : text.isLoading ? <p className="muted">Loading…</p> : <p className="muted">No preview for this type; download it instead.</p>}
    </div>
  );
}

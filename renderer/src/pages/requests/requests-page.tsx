// `/app/{app_id}/requests`: the requests the workspace's API served, newest first, refreshed
// every 2 s, with filters by method, status class and path.
import { useState } from 'react';
import { useParams } from 'react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { consoleApi, enc } from '../../api/client';
import { keys } from '../../api/keys';
import { ErrorBox } from '../../components/error-box';
import { Pager } from '../../components/pager';
import { Dialog } from '../../components/dialog';
import type { ListResponse } from '../../../../server/shared/models';

interface Entry { _id: string; method: string; path: string; status: number; durationMs: number; time: string; accessRule?: string }
interface Detail extends Entry { headers: Record<string, string | string[]> }
const CLASSES: Record<string, [number, number]> = { '2xx': [200, 299], '3xx': [300, 399], '4xx': [400, 499], '5xx': [500, 599] };

export function RequestsPage() {
  const { appId = '' } = useParams();
  const [offset, setOffset] = useState(0);
  const [method, setMethod] = useState('');
  const [status, setStatus] = useState('');
  const [path, setPath] = useState('');
  const [live, setLive] = useState(true);
  const [open, setOpen] = useState<string | null>(null);
  const limit = 50;
  const query: Record<string, string | number | undefined> = { limit, offset, 'filter[method]': method || undefined, 'filter[path][$contains]': path || undefined };
  if (status) { query['filter[status][$gte]'] = CLASSES[status][0]; query['filter[status][$lte]'] = CLASSES[status][1]; }
  const list = useQuery({
    queryKey: keys.list(appId, 'requests', query),
    queryFn: () => consoleApi<ListResponse<Entry>>(`/workspaces/${enc(appId)}/requests`, { query }),
    refetchInterval: live ? 2_000 : false,
    placeholderData: keepPreviousData,
  });
  return (
    <div className="stack">
      <div>
        <h1>Request log</h1>
        <p className="muted">The most recent requests this workspace's API served, newest first.</p>
      </div>
      <div className="toolbar" role="search" aria-label="Filter requests">
        <label className="check">Method
          <select value={method} onChange={(e) => { setMethod(e.target.value); setOffset(0); }}>
            <option value="">Any</option>
            {['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'].map((m) => <option key={m}>{m}</option>)}
          </select>
        </label>
        <label className="check">Status
          <select value={status} onChange={(e) => { setStatus(e.target.value); setOffset(0); }}>
            <option value="">Any</option>
            {Object.keys(CLASSES).map((c) => <option key={c}>{c}</option>)}
          </select>
        </label>
        <label className="check">Path contains
          <input value={path} onChange={(e) => { setPath(e.target.value); setOffset(0); }} placeholder="/database" />
        </label>
        <label className="check"><input type="checkbox" checked={live} onChange={(e) => setLive(e.target.checked)} /> Live</label>
      </div>
      <ErrorBox error={list.error} />
      <div className="table-wrap">
        <table className="list">
          <thead><tr><th scope="col">Time</th><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Status</th><th scope="col">Duration</th><th scope="col">Access rule</th></tr></thead>
          <tbody>
            {list.data?.data.map((r) => (
              <tr key={r._id}>
                <td className="muted small">{new Date(r.time).toLocaleTimeString()}</td>
                <td><code>{r.method}</code></td>
                <td><button type="button" className="link mono" onClick={() => setOpen(r._id)} aria-label={`Details of ${r.method} ${r.path}`}>{r.path}</button></td>
                <td><span className={`badge ${r.status < 400 ? 'ok' : 'bad'}`}>{r.status}</span></td>
                <td>{r.durationMs.toFixed(1)} ms</td>
                <td className="muted">{r.accessRule ?? ''}</td>
              </tr>
            ))}
            {list.data?.data.length === 0 ? <tr><td colSpan={6} className="muted">No request matches.</td></tr> : null}
          </tbody>
        </table>
      </div>
      {list.data ? <Pager total={list.data.meta.total} offset={offset} limit={limit} onOffset={setOffset} label="Request log pages" /> : null}
      <Dialog open={!!open} side title="Request" onClose={() => setOpen(null)}>
        {open ? <RequestDetail appId={appId} id={open} /> : null}
      </Dialog>
    </div>
  );
}

function RequestDetail({ appId, id }: { appId: string; id: string }) {
  const detail = useQuery({
    queryKey: keys.list(appId, 'request', id),
    queryFn: () => consoleApi<Detail>(`/workspaces/${enc(appId)}/requests/${enc(id)}`),
  });
  if (detail.error) return <ErrorBox error={detail.error} />;
  const d = detail.data;
  if (!d) return <p className="muted">Loading…</p>;
  return (
    <div className="stack">
      <dl className="kv">
        <dt>Request</dt><dd><code>{d.method} {d.path}</code></dd>
        <dt>Status</dt><dd><span className={`badge ${d.status < 400 ? 'ok' : 'bad'}`}>{d.status}</span></dd>
        <dt>Duration</dt><dd>{d.durationMs.toFixed(2)} ms</dd>
        <dt>Time</dt><dd>{new Date(d.time).toLocaleString()}</dd>
        <dt>Access rule</dt><dd>{d.accessRule ?? <span className="muted">none decided (not a records request, or refused earlier)</span>}</dd>
      </dl>
      <h3>Request headers</h3>
      <p className="muted small">Credentials (Authorization, cookies) are hidden by the server.</p>
      <table className="list"><tbody>
        {Object.entries(d.headers).map(([k, v]) => <tr key={k}><th scope="row" className="mono">{k}</th><td className="mono small" style={{ wordBreak: 'break-all' }}>{Array.isArray(v) ? v.join(', ') : v}</td></tr>)}
      </tbody></table>
    </div>
  );
}

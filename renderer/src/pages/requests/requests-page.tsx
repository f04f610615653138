// `/app/{app_id}/requests`: the requests the workspace's API served, newest first, with filters
// by method, status class and path. New ones arrive by push (the console API's server-sent
// events tail, api/request-tail.ts) and join the first page as they come; the tail pauses,
// resumes, and reconnects by itself (reloading the page of the list when it does).
import { useState } from 'react';
import { useParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { useRequestTail, type TailState } from '../../api/request-tail';
import { ErrorBox } from '../../components/error-box';
import { Pager } from '../../components/pager';
import { Dialog } from '../../components/dialog';
import { addToRequestsPage, invalidateRequests, useRequestsQuery } from '../../data/requests/requests-query';
import { useRequestQuery } from '../../data/requests/request-query';
import type { LoggedBody as Body, RequestEntry as Entry } from '../../data/types';
const CLASSES: Record<string, [number, number]> = { '2xx': [200, 299], '3xx': [300, 399], '4xx': [400, 499], '5xx': [500, 599] };
const STATE_TEXT: Record<TailState, string> = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', paused: 'Paused' };

export function RequestsPage() {
  const { appId = '' } = useParams();
  const qc = useQueryClient();
  const [offset, setOffset] = useState(0);
  const [method, setMethod] = useState('');
  const [status, setStatus] = useState('');
  const [path, setPath] = useState('');
  const [paused, setPaused] = useState(false);
  const [newer, setNewer] = useState(0);
  const [open, setOpen] = useState<string | null>(null);
  // The console's own requests (marked by the header it sends) are left out unless asked for.
  const [mine, setMine] = useState(false);
  const limit = 50;
  const filters: Record<string, string | number | undefined> = {
    'filter[method]': method || undefined, 'filter[path][$contains]': path || undefined, 'filter[console][$ne]': mine ? undefined : 'true',
  };
  if (status) { filters['filter[status][$gte]'] = CLASSES[status][0]; filters['filter[status][$lte]'] = CLASSES[status][1]; }
  const query = { limit, offset, ...filters };
  const list = useRequestsQuery(appId, query);
  const tail = useRequestTail<Entry>(appId, filters, paused, {
    onEntry: (entry) => {
      // On the first page a new request joins the top; further back it would shift the page
      // under the reader, so it is counted instead.
      if (offset > 0) { setNewer((n) => n + 1); return; }
      addToRequestsPage(qc, appId, query, entry, limit);
    },
    onStale: () => { setNewer(0); void invalidateRequests(qc, appId); },
  });
  const goTo = (o: number) => { setOffset(o); if (o === 0) setNewer(0); };
  return (
    <div className="stack">
      <div>
        <h1>Request log</h1>
        <p className="muted">The most recent requests this workspace's API served, newest first. New ones appear as they are served.</p>
      </div>
      <div className="toolbar" role="search" aria-label="Filter requests">
        <label className="check">Method
          <select value={method} onChange={(e) => { setMethod(e.target.value); goTo(0); }}>
            <option value="">Any</option>
            {['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'].map((m) => <option key={m}>{m}</option>)}
          </select>
        </label>
        <label className="check">Status
          <select value={status} onChange={(e) => { setStatus(e.target.value); goTo(0); }}>
            <option value="">Any</option>
            {Object.keys(CLASSES).map((c) => <option key={c}>{c}</option>)}
          </select>
        </label>
        <label className="check">Path contains
          <input value={path} onChange={(e) => { setPath(e.target.value); goTo(0); }} placeholder="/database" />
        </label>
        <label className="check"><input type="checkbox" checked={mine} onChange={(e) => { setMine(e.target.checked); goTo(0); }} /> Show the console's requests</label>
        <span style={{ flex: 1 }} />
        <span className="server-status" role="status" aria-label="Live tail">
          <span className={`dot ${tail === 'live' ? 'ok' : tail === 'reconnecting' ? 'down' : ''}`} aria-hidden="true" />
          {STATE_TEXT[tail]}
        </span>
        <button type="button" className="small" aria-pressed={paused} onClick={() => setPaused(!paused)}>{paused ? 'Resume' : 'Pause'}</button>
      </div>
      {newer > 0 ? <button type="button" className="small" onClick={() => goTo(0)}>{newer} newer request{newer === 1 ? '' : 's'}: show the newest</button> : null}
      <ErrorBox error={list.error} />
      <div className="table-wrap">
        <table className="list">
          <thead><tr><th scope="col">Time</th><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Status</th><th scope="col">Duration</th><th scope="col">Access rule</th></tr></thead>
          <tbody>
            {list.data?.data.map((r) => (
              <tr key={r._id}>
                <td className="muted small">{new Date(r.time).toLocaleTimeString()}</td>
                <td><code>{r.method}</code></td>
                <td><button type="button" className="link mono" onClick={() => setOpen(r._id)} aria-label={`Details of ${r.method} ${r.path}`}>{r.path}</button>{r.console ? <span className="badge" title="Sent by this console">console</span> : null}</td>
                <td><span className={`badge ${r.status < 400 ? 'ok' : 'bad'}`}>{r.status}</span></td>
                <td>{r.durationMs.toFixed(1)} ms</td>
                <td className="muted">{r.accessRule ?? ''}</td>
              </tr>
            ))}
            {list.data?.data.length === 0 ? <tr><td colSpan={6} className="muted">{method || status || path ? 'No request matches.' : `No request yet${mine ? '' : " from your apps (the console's own are hidden)"}.`}</td></tr> : null}
          </tbody>
        </table>
      </div>
      {list.data ? <Pager total={list.data.meta.total} offset={offset} limit={limit} onOffset={goTo} label="Request log pages" /> : null}
      <Dialog open={!!open} side title="Request" onClose={() => setOpen(null)}>
        {open ? <RequestDetail appId={appId} id={open} /> : null}
      </Dialog>
    </div>
  );
}

function RequestDetail({ appId, id }: { appId: string; id: string }) {
  const detail = useRequestQuery(appId, id);
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
      <BodyView title="Request body" body={d.requestBody} dropped={d.bodiesDropped} />
      <BodyView title="Response body" body={d.responseBody} dropped={d.bodiesDropped} />
      <p className="muted small">Bodies are shown up to 16 KiB; passwords, tokens, secrets and API keys in them are masked (***) by the server.</p>
    </div>
  );
}

function BodyView({ title, body, dropped }: { title: string; body?: Body; dropped?: true }) {
  return (
    <>
      <h3>{title}</h3>
      {!body ? <p className="muted small">{dropped ? 'No longer kept: the log keeps the bodies of its most recent requests only.' : 'None (or not JSON).'}</p>
        : 'json' in body ? <pre>{JSON.stringify(body.json, null, 2)}</pre>
          : <><pre>{body.text}</pre>{body.truncated ? <p className="muted small">Cut at 16 KiB.</p> : null}</>}
    </>
  );
}

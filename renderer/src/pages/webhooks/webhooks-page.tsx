// `/app/{app_id}/webhooks[/{id}]`: webhooks (create and edit with the contract's event kinds and
// a filter (collection, match) and batch settings, the signing secret shown once, active toggle, test event) and one
// webhook's delivery log, refreshed every 2 s so new attempts appear as they happen.
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { CopyButton } from '../../components/copy-button';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import { ListPage, type Column } from '../../components/list-page';
import { Pager } from '../../components/pager';
import { TextField } from '../../components/text-field';
import { FilterBatchFields, filterBatchBody, filterBatchState } from './filter-batch-fields';
import { EVENT_TYPES } from '../../../../server/shared/events';
import { useWebhooksQuery } from '../../data/webhooks/webhooks-query';
import { useWebhookQuery } from '../../data/webhooks/webhook-query';
import { useDeliveriesQuery } from '../../data/webhooks/deliveries-query';
import { useWebhookSaveMutation } from '../../data/webhooks/webhook-save-mutation';
import { useWebhookDeleteMutation } from '../../data/webhooks/webhook-delete-mutation';
import { useWebhookTestMutation } from '../../data/webhooks/webhook-test-mutation';
import { useRedeliverMutation } from '../../data/webhooks/delivery-redeliver-mutation';
import type { Delivery, Webhook } from '../../data/types';

/** JSON text pretty-printed; anything else as it is. */
function pretty(body: unknown): string {
  if (typeof body !== 'string') return JSON.stringify(body, null, 2);
  try { return JSON.stringify(JSON.parse(body), null, 2); } catch { return body; }
}

/** A retry still to come: the newest failed attempt of its event, its time not passed long ago. */
function pendingRetry(d: Delivery, all: Delivery[]): string | undefined {
  if (!d.nextAttemptAt) return undefined;
  const newer = all.some((x) => x.eventId === d.eventId && x.createdAt > d.createdAt);
  return newer ? undefined : d.nextAttemptAt;
}

export function WebhooksPage() {
  const { appId = '', id } = useParams();
  return id ? <WebhookDetail appId={appId} id={id} /> : <WebhookList appId={appId} />;
}

function WebhookList({ appId }: { appId: string }) {
  const [offset, setOffset] = useState(0);
  const [editing, setEditing] = useState<Webhook | 'new' | null>(null);
  const [created, setCreated] = useState<Webhook | null>(null);
  const limit = 50;
  const list = useWebhooksQuery(appId, { limit, offset });
  const toggle = useWebhookSaveMutation(appId);
  const columns: Array<Column<Webhook>> = [
    { header: 'Name', cell: (w) => <Link to={`/app/${appId}/webhooks/${w._id}`}>{w.name}</Link> },
    { header: 'URL', cell: (w) => w.url, td: { className: 'mono small' } },
    {
      header: 'Events',
      cell: (w) => <>{w.events.join(', ')}{w.filter?.collection ? <span className="muted"> · {w.filter.collection}</span> : null}{w.filter?.match ? <span className="muted"> · match</span> : null}{w.batch ? <span className="muted"> · batches of {w.batch.maxEvents} / {w.batch.maxWaitMs} ms</span> : null}</>,
      td: { className: 'small' },
    },
    { header: 'Active', cell: (w) => <input type="checkbox" aria-label={`Active: ${w.name}`} checked={w.active} onChange={() => toggle.mutate({ id: w._id, body: { active: !w.active } })} /> },
    {
      header: 'Actions',
      cell: (w) => (
        <div className="row">
          <Link className="button small" to={`/app/${appId}/webhooks/${w._id}`} aria-label={`Deliveries of ${w.name}`}>Deliveries</Link>
          <button type="button" className="small" onClick={() => setEditing(w)} aria-label={`Edit ${w.name}`}>Edit</button>
        </div>
      ),
    },
  ];
  return (
    <ListPage
      title="Webhooks"
      intro="Events of this workspace POSTed to your URLs, signed per Standard Webhooks, retried on failure."
      create={{ label: 'New webhook', onClick: () => setEditing('new') }}
      error={list.error ?? toggle.error}
      columns={columns} rows={list.data?.data} rowKey={(w) => w._id} empty="No webhook yet."
      page={list.data ? { total: list.data.meta.total, offset, limit, onOffset: setOffset, label: 'Webhook pages' } : undefined}
    >
      <Dialog open={!!editing} title={editing === 'new' ? 'New webhook' : `Edit ${editing?.name ?? ''}`} onClose={() => setEditing(null)}>
        {editing ? <WebhookForm appId={appId} webhook={editing === 'new' ? undefined : editing} onDone={(w) => { setEditing(null); if (w?.secret) setCreated(w); }} /> : null}
      </Dialog>
      <Dialog open={!!created} title="Signing secret" onClose={() => setCreated(null)}>
        {created?.secret ? (
          <div className="stack">
            <p><strong>Copy it now: it is shown only once.</strong> Verify each delivery's <code>webhook-signature</code> with it (Standard Webhooks).</p>
            <div className="row"><code style={{ wordBreak: 'break-all' }}>{created.secret}</code><CopyButton text={created.secret} what="the signing secret" /></div>
          </div>
        ) : null}
      </Dialog>
    </ListPage>
  );
}

function WebhookForm({ appId, webhook, onDone }: { appId: string; webhook?: Webhook; onDone: (w?: Webhook) => void }) {
  const [name, setName] = useState(webhook?.name ?? '');
  const [url, setUrl] = useState(webhook?.url ?? '');
  const [events, setEvents] = useState<string[]>(webhook?.events ?? ['record.*']);
  const [fb, setFb] = useState(() => filterBatchState(webhook?.filter, webhook?.batch));
  const [matchError, setMatchError] = useState<string | undefined>();
  const [active, setActive] = useState(webhook?.active ?? true);
  const saveWebhook = useWebhookSaveMutation(appId, { onSuccess: (w) => onDone(w) });
  const [checkError, setCheckError] = useState<ApiError | null>(null);
  const save = {
    error: checkError ?? saveWebhook.error,
    isPending: saveWebhook.isPending,
    mutate: () => {
      const { body: extra, matchError: bad } = filterBatchBody(fb, webhook);
      setMatchError(bad);
      setCheckError(bad ? new ApiError(422, 'VALIDATION_ERROR', `filter.match: ${bad}`, { field: 'filter.match' }) : null);
      if (bad) { saveWebhook.reset(); return; }
      saveWebhook.mutate({ id: webhook?._id, body: { name, url, events, active, ...extra } });
    },
  };
  const errs = save.error instanceof ApiError ? save.error.fieldErrors() : {};
  const patterns = ['*', 'record.*', 'user.*', 'file.*', 'message.*', 'channel.*', ...EVENT_TYPES];
  return (
    <form className="form" onSubmit={(e) => { e.preventDefault(); save.mutate(); }}>
      <TextField label="Name" value={name} onChange={setName} error={errs.name} required />
      <TextField label="URL" type="url" value={url} onChange={setUrl} error={errs.url} required hint="Where the events are POSTed (http or https)." />
      <fieldset>
        <legend>Events</legend>
        <div className="grid-2" style={{ gridTemplateColumns: 'repeat(auto-fill, minmax(160px, 1fr))', gap: 4 }}>
          {patterns.map((p) => (
            <label key={p} className="check"><input type="checkbox" checked={events.includes(p)} onChange={(e) => setEvents(e.target.checked ? [...events, p] : events.filter((x) => x !== p))} /> <code>{p}</code></label>
          ))}
        </div>
        {errs.events ? <span className="field-error">{errs.events}</span> : null}
      </fieldset>
      <FilterBatchFields appId={appId} value={fb} onChange={(v) => { setFb(v); setMatchError(undefined); }} errors={errs} matchError={matchError} />
      <label className="check"><input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} /> Active (events fire only while active)</label>
      <ErrorBox error={save.error} />
      <div className="form-actions"><button type="submit" className="primary" disabled={save.isPending}>{webhook ? 'Save' : 'Create webhook'}</button></div>
    </form>
  );
}

function WebhookDetail({ appId, id }: { appId: string; id: string }) {
  const navigate = useNavigate();
  const [offset, setOffset] = useState(0);
  const [open, setOpen] = useState<Delivery | null>(null);
  const limit = 25;
  const hook = useWebhookQuery(appId, id);
  const logs = useDeliveriesQuery(appId, id, { limit, offset });
  const test = useWebhookTestMutation(appId, id);
  // Sends that attempt's event again (same event id, signed anew); the answer is the new attempt.
  const redeliver = useRedeliverMutation(appId, id, { onSuccess: (d) => { setOpen(null); setSent(d); } });
  const [sent, setSent] = useState<Delivery | null>(null);
  const del = useWebhookDeleteMutation(appId, { onSuccess: () => navigate(`/app/${appId}/webhooks`) });
  return (
    <div className="stack">
      <div className="page-head" style={{ marginBottom: 0 }}>
        <div>
          <div className="muted small"><Link to={`/app/${appId}/webhooks`}>Webhooks</Link> /</div>
          <h1>{hook.data?.name ?? id}</h1>
          {hook.data ? <p className="muted small mono">{hook.data.url} · {hook.data.events.join(', ')} · {hook.data.active ? 'active' : 'inactive'}</p> : null}
        </div>
        <div className="toolbar">
          <button type="button" className="primary" onClick={() => test.mutate()} disabled={test.isPending}>Send test event</button>
          <button type="button" onClick={() => { if (confirm('Delete this webhook and its delivery log?')) del.mutate(id); }}>Delete</button>
        </div>
      </div>
      <ErrorBox error={hook.error ?? logs.error ?? test.error ?? del.error ?? redeliver.error} />
      {sent ? <div className="notice" role="status">Sent <code>{sent.event}</code> again: {sent.status === 'succeeded' ? `the receiver answered ${sent.response?.status ?? ''}` : `it failed (${sent.error ?? sent.response?.status ?? ''})`}{sent.nextAttemptAt ? `; next retry at ${new Date(sent.nextAttemptAt).toLocaleTimeString()}` : ''}.</div> : null}
      <h2>Deliveries</h2>
      <div className="table-wrap">
      <table className="list">
        <thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Attempt</th><th scope="col">Result</th><th scope="col">Duration</th><th scope="col">Details</th></tr></thead>
        <tbody>
          {logs.data?.data.map((d) => (
            <tr key={d._id}>
              <td className="muted small">{new Date(d.createdAt).toLocaleTimeString()}</td>
              <td><code>{d.event}</code></td>
              <td>{d.attempt}</td>
              <td>
                <span className={`badge ${d.status === 'succeeded' || d.status === 'success' ? 'ok' : 'bad'}`}>{d.response?.status ?? d.status}</span>{d.error ? <span className="muted small"> {d.error}</span> : null}
                {pendingRetry(d, logs.data.data) ? <div className="small" title={pendingRetry(d, logs.data.data)}>Next retry at {new Date(pendingRetry(d, logs.data.data)!).toLocaleTimeString()}</div> : null}
                {d.redeliveryOf ? <div className="muted small">sent again by hand</div> : null}
              </td>
              <td>{d.durationMs !== undefined ? `${d.durationMs} ms` : ''}</td>
              <td><div className="row" style={{ flexWrap: 'nowrap' }}>
                <button type="button" className="small" onClick={() => setOpen(d)} aria-label={`Details of attempt ${d.attempt} of ${d.event}`}>Open</button>
                <button type="button" className="small" disabled={redeliver.isPending} onClick={() => redeliver.mutate(d)} aria-label={`Send ${d.event} of ${new Date(d.createdAt).toLocaleTimeString()} again`}>Send again</button>
              </div></td>
            </tr>
          ))}
          {logs.data?.data.length === 0 ? <tr><td colSpan={6} className="muted">No delivery yet. Send a test event, or change something this webhook listens to.</td></tr> : null}
        </tbody>
      </table>
      </div>
      {logs.data ? <Pager total={logs.data.meta.total} offset={offset} limit={limit} onOffset={setOffset} label="Delivery pages" /> : null}
      <Dialog open={!!open} side title={open ? `${open.event}, attempt ${open.attempt}` : ''} onClose={() => setOpen(null)}>
        {open ? (
          <div className="stack">
            <div className="row">
              <button type="button" className="small" disabled={redeliver.isPending} onClick={() => redeliver.mutate(open)}>Send this event again</button>
              {open.nextAttemptAt
                ? <span className="small">{pendingRetry(open, logs.data?.data ?? []) ? 'Next retry at' : 'Retried at'} {new Date(open.nextAttemptAt).toLocaleString()} (<span className="mono">{open.nextAttemptAt}</span>)</span>
                : null}
            </div>
            <h3>Request headers</h3><pre>{JSON.stringify(open.request.headers, null, 2)}</pre>
            <h3>Request body{open.request.bodyTruncated ? ' (cut at 64 KiB)' : ''}</h3><pre>{pretty(open.request.body)}</pre>
            <h3>Response {open.response?.status ?? ''}</h3><pre>{open.response?.body !== undefined ? pretty(open.response.body) : open.error ?? '(none)'}</pre>
          </div>
        ) : null}
      </Dialog>
    </div>
  );
}

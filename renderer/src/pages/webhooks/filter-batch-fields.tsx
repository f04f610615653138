// The webhook form's filter and batch settings: the collection (a select of the workspace's
// collections), `match` (JSON conditions on the event's data, checked by the server: its 422 is
// shown at the editor) and `batch` (maxEvents / maxWaitMs, both empty for single deliveries).
import { useId } from 'react';
import { JsonEditor } from '../../components/json-field';
import { useCollectionIdsQuery } from '../../data/collections/collection-ids-query';
import type { WebhookBatch, WebhookFilter } from '../../data/types';

/** The form's text state of the filter and batch settings. */
export interface FilterBatchState { collection: string; match: string; maxEvents: string; maxWaitMs: string }

export function filterBatchState(filter?: WebhookFilter | null, batch?: WebhookBatch | null): FilterBatchState {
  return {
    collection: filter?.collection ?? '',
    match: filter?.match ? JSON.stringify(filter.match, null, 2) : '',
    maxEvents: batch ? String(batch.maxEvents) : '',
    maxWaitMs: batch ? String(batch.maxWaitMs) : '',
  };
}

/** The body's `filter` and `batch` from the form: left out when empty on creation, `null` when
 *  emptied on an edit (which removes them). A match that is not a JSON object is an error here,
 *  before anything is sent; what the object says is the server's to judge. */
export function filterBatchBody(s: FilterBatchState, editing: { filter?: unknown; batch?: unknown } | undefined):
  { body: { filter?: WebhookFilter | null; batch?: WebhookBatch | null }; matchError?: string } {
  const body: { filter?: WebhookFilter | null; batch?: WebhookBatch | null } = {};
  let match: Record<string, unknown> | undefined;
  if (s.match.trim()) {
    let parsed: unknown;
    try { parsed = JSON.parse(s.match); } catch { return { body, matchError: 'Not JSON: write an object such as { "status": "paid" }.' }; }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { body, matchError: 'Must be a JSON object of conditions.' };
    match = parsed as Record<string, unknown>;
  }
  if (s.collection || match) body.filter = { ...(s.collection ? { collection: s.collection } : {}), ...(match ? { match } : {}) };
  else if (editing?.filter) body.filter = null;
  if (s.maxEvents.trim() || s.maxWaitMs.trim()) {
    // Sent as typed (a number when it reads as one): a missing or out-of-range value is the server's 422.
    const num = (v: string) => (v.trim() === '' ? undefined : Number.isFinite(Number(v)) ? Number(v) : v);
    body.batch = { maxEvents: num(s.maxEvents), maxWaitMs: num(s.maxWaitMs) } as unknown as WebhookBatch;
  } else if (editing?.batch) body.batch = null;
  return { body };
}

export function FilterBatchFields({ appId, value, onChange, errors, matchError }: {
  appId: string; value: FilterBatchState; onChange: (v: FilterBatchState) => void; errors: Record<string, string>; matchError?: string;
}) {
  const id = useId();
  const collections = useCollectionIdsQuery(appId);
  const ids = [...(collections.data ?? [])];
  if (value.collection && !ids.includes(value.collection)) ids.push(value.collection);
  const set = (patch: Partial<FilterBatchState>) => onChange({ ...value, ...patch });
  const pick = (prefix: string) => errors[prefix] ?? Object.entries(errors).find(([f]) => f.startsWith(`${prefix}.`))?.[1];
  const collectionError = pick('filter.collection');
  const matchErr = matchError ?? pick('filter.match') ?? (errors.filter && !errors['filter.collection'] ? errors.filter : undefined);
  const batchError = errors.batch;
  const eventsError = errors['batch.maxEvents'];
  const waitError = errors['batch.maxWaitMs'];
  return (
    <>
      <fieldset>
        <legend>Filter</legend>
        <div className="stack" style={{ gap: 10 }}>
          <label className="field">
            Collection
            <select value={value.collection} onChange={(e) => set({ collection: e.target.value })}
              aria-invalid={collectionError ? true : undefined} aria-describedby={`${id}-coll-hint${collectionError ? ` ${id}-coll-err` : ''}`}>
              <option value="">Any (every event kind)</option>
              {ids.map((c) => <option key={c} value={c}>{c}</option>)}
            </select>
            <span className="hint" id={`${id}-coll-hint`}>A collection lets only record events of that collection through.</span>
            {collectionError ? <span className="field-error" id={`${id}-coll-err`}>{collectionError}</span> : null}
          </label>
          <div className="field">
            <span id={`${id}-match-label`}>Match</span>
            <div aria-invalid={matchErr ? true : undefined} className={matchErr ? 'invalid' : undefined}>
              <JsonEditor label="Match (JSON conditions on the event's data)" value={value.match} onChange={(t) => set({ match: t })} minHeight={60} />
            </div>
            <span className="hint">Optional. Conditions the event&apos;s data must all meet, in the list filter&apos;s language: <code>{'{ "status": "paid", "total": { "$gte": 100 } }'}</code></span>
            {matchErr ? <span className="field-error" role="alert" data-testid="match-error">{matchErr}</span> : null}
          </div>
        </div>
      </fieldset>
      <fieldset>
        <legend>Batch</legend>
        <p className="hint" style={{ marginTop: 0 }}>Optional: gather events into one delivery, sent when it holds <em>max events</em> or <em>max wait</em> after its first event. Leave both empty to send each event alone.</p>
        <div className="grid-2">
          <label className="field">
            Max events
            <input type="number" min={1} max={100} step={1} value={value.maxEvents} onChange={(e) => set({ maxEvents: e.target.value })}
              aria-invalid={eventsError ? true : undefined} aria-describedby={eventsError ? `${id}-ev-err` : undefined} />
            {eventsError ? <span className="field-error" id={`${id}-ev-err`}>{eventsError}</span> : <span className="hint">1 to 100</span>}
          </label>
          <label className="field">
            Max wait (ms)
            <input type="number" min={1} max={3_600_000} step={1} value={value.maxWaitMs} onChange={(e) => set({ maxWaitMs: e.target.value })}
              aria-invalid={waitError ? true : undefined} aria-describedby={waitError ? `${id}-wait-err` : undefined} />
            {waitError ? <span className="field-error" id={`${id}-wait-err`}>{waitError}</span> : <span className="hint">1 to 3,600,000 (an hour)</span>}
          </label>
        </div>
        {batchError ? <span className="field-error">{batchError}</span> : null}
      </fieldset>
    </>
  );
}

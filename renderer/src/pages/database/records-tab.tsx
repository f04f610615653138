// The records of a collection: filter, sort, view and page in the URL (a link reproduces the
// grid), column chooser, row selection with bulk delete, create/edit form, JSON view, and
// records created elsewhere appearing live (realtime `database:` topic).
import { useCallback, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { useRealtime } from '../../api/realtime';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import { JsonEditor } from '../../components/json-field';
import { CopyButton } from '../../components/copy-button';
import { Pager } from '../../components/pager';
import { conditionsFromParams, conditionsToParams, conditionsToViewFilter, type Condition } from '../../lib/filter';
import { useRecordsQuery } from '../../data/records/records-query';
import { saveRecord } from '../../data/records/record-save';
import { invalidateRecords, putRecordInPage } from '../../data/records/records-cache';
import { useRecordsDeleteMutation } from '../../data/records/records-delete-mutation';
import { useSchemaSaveMutation } from '../../data/collections/schema-item-save-mutation';
import type { CollectionDef } from '../../data/types';
import { FilterBar } from './filter-bar';
import { RecordForm } from './record-form';
import { RecordsGrid, type CellEdit, type Rec } from './records-grid';
import { useRefLabels } from './ref-labels';
import type { ColumnSizingState } from '@tanstack/react-table';
import { TextField } from '../../components/text-field';

const SYSTEM_COLUMNS = ['_owner', 'createdAt', 'updatedAt'];

function hiddenKey(appId: string, c: string) { return `homebase.hiddenColumns.${appId}.${c}`; }
function widthsKey(appId: string, c: string) { return `homebase.columnWidths.${appId}.${c}`; }

/** A view id from its name (`Senior admins` → `senior-admins`), unique among `taken`. */
export function viewIdFrom(name: string, taken: string[]): string {
  let base = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 50);
  if (!/^[a-z]/.test(base)) base = `view-${base}`.replace(/-+$/, '');
  let id = base;
  for (let n = 2; taken.includes(id); n++) id = `${base}-${n}`;
  return id;
}

export function RecordsTab({ appId, def }: { appId: string; def: CollectionDef }) {
  const qc = useQueryClient();
  const [params, setParams] = useSearchParams();
  const conditions = useMemo(() => conditionsFromParams(params), [params]);
  const sort = params.get('sort') ?? '';
  const view = params.get('view') ?? '';
  const limit = Math.min(100, Math.max(1, Number(params.get('limit')) || 50));
  const page = Math.max(1, Number(params.get('page')) || 1);
  const offset = (page - 1) * limit;

  const apiQuery = useMemo(() => {
    const q = new URLSearchParams();
    for (const [k, v] of params) if (k.startsWith('filter[')) q.append(k, v);
    if (sort) q.set('sort', sort);
    if (view) q.set('view', view);
    q.set('limit', String(limit));
    q.set('offset', String(offset));
    return q;
  }, [params, sort, view, limit, offset]);
  const records = useRecordsQuery(appId, def._id, apiQuery);

  // Live: events on this collection refetch the page in place (debounced).
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useRealtime(appId, `database:${def._id}`, useCallback(() => {
    clearTimeout(pending.current);
    pending.current = setTimeout(() => void invalidateRecords(qc, appId, def._id), 250);
  }, [qc, appId, def._id]));

  const update = (change: (p: URLSearchParams) => void) => {
    const next = new URLSearchParams(params);
    change(next);
    setParams(next);
  };
  const applyFilter = (next: Condition[], nextSort?: string) => update((p) => {
    for (const k of [...p.keys()]) if (k.startsWith('filter[')) p.delete(k);
    for (const [k, v] of conditionsToParams(next)) p.append(k, v);
    if (nextSort !== undefined) { if (nextSort) p.set('sort', nextSort); else p.delete('sort'); }
    p.delete('page');
  });

  // Columns: id, the schema's fields, other keys seen on this page, then the system ones.
  const rows = records.data?.data ?? [];
  const allColumns = useMemo(() => {
    const cols = ['_id', ...def.fields.map((f) => f._id)];
    const seen = new Set(cols.concat(SYSTEM_COLUMNS));
    for (const r of rows) for (const k of Object.keys(r)) if (!seen.has(k) && seen.size < 80) { seen.add(k); cols.push(k); }
    return cols.concat(SYSTEM_COLUMNS);
  }, [def.fields, rows]);
  const [hidden, setHidden] = useState<Set<string>>(() => {
    try { return new Set(JSON.parse(localStorage.getItem(hiddenKey(appId, def._id)) ?? '[]') as string[]); } catch { return new Set(); }
  });
  const setHiddenSaved = (next: Set<string>) => { setHidden(next); try { localStorage.setItem(hiddenKey(appId, def._id), JSON.stringify([...next])); } catch { /* ignore */ } };
  const visible = allColumns.filter((c) => !hidden.has(c));
  const [widths, setWidths] = useState<ColumnSizingState>(() => {
    try { return JSON.parse(localStorage.getItem(widthsKey(appId, def._id)) ?? '{}') as ColumnSizingState; } catch { return {}; }
  });
  const saveWidths = (next: ColumnSizingState) => { setWidths(next); try { localStorage.setItem(widthsKey(appId, def._id), JSON.stringify(next)); } catch { /* ignore */ } };
  const labels = useRefLabels(appId, def, visible, rows, useMemo(() => new Map([[def._id, def]]), [def]));
  const saveCell = async ({ rec, field, value }: CellEdit) => {
    const saved = await saveRecord(appId, def._id, rec._id, { [field._id]: value });
    putRecordInPage(qc, appId, def._id, apiQuery, saved);
  };

  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [editing, setEditing] = useState<Rec | 'new' | null>(null);
  const [json, setJson] = useState<Rec | null>(null);
  const [value, setValue] = useState<{ rec: Rec; col: string } | null>(null);
  const [columnsOpen, setColumnsOpen] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [saveView, setSaveView] = useState(false);

  const bulkDelete = useRecordsDeleteMutation(appId, def._id, { onSettled: () => { setSelected(new Set()); setConfirmDelete(false); } });

  const onSaved = (saved: Rec) => {
    if (editing !== 'new') {
      // In place: the row keeps its position, the grid does not jump.
      putRecordInPage(qc, appId, def._id, apiQuery, saved);
    } else {
      void invalidateRecords(qc, appId, def._id);
    }
    setEditing(null);
  };

  return (
    <div className="stack" style={{ gap: 8 }}>
      <FilterBar conditions={conditions} fields={allColumns} onApply={applyFilter} />
      <div className="toolbar">
        <label className="check">View
          <select aria-label="View" value={view} onChange={(e) => update((p) => { if (e.target.value) p.set('view', e.target.value); else p.delete('view'); p.delete('page'); })}>
            <option value="">(none)</option>
            {def.views.map((v) => <option key={v._id} value={v._id}>{v.name}</option>)}
          </select>
        </label>
        <button type="button" className="small" onClick={() => setSaveView(true)} disabled={!conditions.length && !sort}>Save as view</button>
        <button type="button" className="small" onClick={() => setColumnsOpen(true)}>Columns ({visible.length}/{allColumns.length})</button>
        {sort ? <span className="badge">sort: {sort}</span> : null}
        <span style={{ flex: 1 }} />
        {selected.size ? <button type="button" className="small danger" onClick={() => setConfirmDelete(true)}>Delete {selected.size} selected</button> : null}
        <button type="button" className="primary" onClick={() => setEditing('new')}>New record</button>
      </div>
      <ErrorBox error={records.error} />
      <RecordsGrid
        def={def} labels={labels} widths={widths} onWidths={saveWidths} onCellSave={saveCell} filtered={conditions.length > 0 || !!view}
        rows={rows} columns={visible} sort={sort} busy={records.isFetching && !records.data}
        onSort={(s) => update((p) => { if (s) p.set('sort', s); else p.delete('sort'); p.delete('page'); })}
        selected={selected} onSelect={setSelected}
        onEdit={setEditing} onJson={setJson} onValue={(rec, col) => setValue({ rec, col })}
      />
      {records.data ? (
        <Pager total={records.data.meta.total} offset={offset} limit={limit} label="Record pages"
          onOffset={(o) => update((p) => { const n = Math.floor(o / limit) + 1; if (n > 1) p.set('page', String(n)); else p.delete('page'); })}
          onLimit={(l) => update((p) => { p.set('limit', String(l)); p.delete('page'); })} />
      ) : null}

      <Dialog open={!!editing} title={editing === 'new' ? `New record in ${def._id}` : `Edit record ${editing?._id ?? ''}`} onClose={() => setEditing(null)} wide>
        {editing ? <RecordForm key={editing === 'new' ? 'new' : editing._id} appId={appId} def={def} record={editing === 'new' ? undefined : editing} onSaved={onSaved} /> : null}
      </Dialog>
      <Dialog open={!!json} side title={`Record ${json?._id ?? ''}`} onClose={() => setJson(null)}>
        {json ? (
          <div className="stack">
            <div className="row"><CopyButton text={JSON.stringify(json, null, 2)} what="the record's JSON" /><button type="button" className="small" onClick={() => { setEditing(json); setJson(null); }}>Edit</button></div>
            <JsonEditor label="Record JSON" readOnly value={JSON.stringify(json, null, 2)} />
          </div>
        ) : null}
      </Dialog>
      <Dialog open={!!value} side title={value ? `${value.col} of ${value.rec._id}` : ''} onClose={() => setValue(null)}>
        {value ? (
          <div className="stack">
            <CopyButton text={typeof value.rec[value.col] === 'string' ? String(value.rec[value.col]) : JSON.stringify(value.rec[value.col], null, 2)} what="the value" />
            {typeof value.rec[value.col] === 'string'
              ? <pre>{String(value.rec[value.col])}</pre>
              : <JsonEditor label={`Value of ${value.col}`} readOnly value={JSON.stringify(value.rec[value.col], null, 2)} />}
          </div>
        ) : null}
      </Dialog>
      <Dialog open={columnsOpen} title="Columns" onClose={() => setColumnsOpen(false)}>
        <fieldset>
          <legend>Shown columns</legend>
          <div className="grid-2" style={{ gridTemplateColumns: 'repeat(auto-fill, minmax(170px, 1fr))', gap: 6 }}>
            {allColumns.map((c) => (
              <label key={c} className="check"><input type="checkbox" checked={!hidden.has(c)} onChange={(e) => {
                const next = new Set(hidden);
                if (e.target.checked) next.delete(c); else next.add(c);
                setHiddenSaved(next);
              }} /> {def.fields.find((f) => f._id === c)?.name && def.fields.find((f) => f._id === c)?.name !== c ? <>{def.fields.find((f) => f._id === c)?.name} <code>{c}</code></> : <code>{c}</code>}</label>
            ))}
          </div>
        </fieldset>
        <div className="form-actions"><button type="button" onClick={() => setHiddenSaved(new Set())}>Show all</button><button type="button" onClick={() => saveWidths({})}>Reset widths</button></div>
        <p className="muted small">Drag a header's right edge (or focus it and use the arrow keys) to change a column's width; double-click it for the default. Shown columns and widths are kept for this collection in this browser.</p>
      </Dialog>
      <Dialog open={confirmDelete} title={`Delete ${selected.size} ${selected.size === 1 ? 'record' : 'records'}`} onClose={() => setConfirmDelete(false)}>
        <div className="stack">
          <p>{selected.size === 1 ? <>Delete the selected record of <code>{def._id}</code>?</> : <>Delete the {selected.size} selected records of <code>{def._id}</code>?</>} This cannot be undone.</p>
          <ErrorBox error={bulkDelete.error} />
          <div className="form-actions"><button type="button" className="danger" disabled={bulkDelete.isPending} onClick={() => bulkDelete.mutate([...selected])}>{selected.size === 1 ? 'Delete record' : 'Delete records'}</button></div>
        </div>
      </Dialog>
      <SaveViewDialog open={saveView} onClose={() => setSaveView(false)} appId={appId} def={def} conditions={conditions} sort={sort}
        fields={hidden.size ? visible : undefined} onSaved={(id) => update((p) => { for (const k of [...p.keys()]) if (k.startsWith('filter[')) p.delete(k); p.delete('sort'); p.set('view', id); p.delete('page'); })} />
    </div>
  );
}

function SaveViewDialog(props: { open: boolean; onClose: () => void; appId: string; def: CollectionDef; conditions: Condition[]; sort: string; fields?: string[]; onSaved: (id: string) => void }) {
  const [name, setName] = useState('');
  // The view is in the collection's definition before the grid switches to it.
  const save = useSchemaSaveMutation<{ _id: string }>(props.appId, props.def._id, 'views', undefined, {
    onSuccess: (v) => {
      setName('');
      props.onClose();
      props.onSaved(v._id);
    },
  }, { refetchFirst: true });
  return (
    <Dialog open={props.open} title="Save as view" onClose={() => { save.reset(); props.onClose(); }}>
      <form className="form" onSubmit={(e) => {
        e.preventDefault();
        save.mutate({ _id: viewIdFrom(name, props.def.views.map((v) => v._id)), name, filter: conditionsToViewFilter(props.conditions), ...(props.sort ? { sort: props.sort } : {}), ...(props.fields ? { fields: props.fields } : {}) });
      }}>
        <p className="muted">Saves the current filter{props.sort ? ' and sort' : ''}{props.fields ? ' and shown columns' : ''}; <code>GET /database/{props.def._id}?view=&lt;id&gt;</code> applies it.</p>
        <TextField label="View name" value={name} onChange={setName} required />
        <ErrorBox error={save.error} />
        <div className="form-actions"><button type="submit" className="primary" disabled={!name || save.isPending}>Save view</button></div>
      </form>
    </Dialog>
  );
}

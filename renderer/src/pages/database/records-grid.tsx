// The records grid: a headless table (TanStack Table) whose rows are virtualised (TanStack
// Virtual), fed one server page at a time; sorting is the server's (clicking a header changes
// `sort` in the URL). Headers show field names; columns can be resized (widths kept per
// collection by the caller); the checkbox and `_id` columns stay at the left and Actions at the
// right while the rest scrolls. A schema field's cell is edited in place (Enter saves, Escape
// cancels, the field's rule checked before sending and the server's answer shown after);
// reference, user and file values show a label that links to what they point to; dates show in
// local time (ISO on hover); long values end in an ellipsis and open whole in the side panel.
import { useMemo, useRef, useState } from 'react';
import { Link } from 'react-router';
import { createColumnHelper, flexRender, getCoreRowModel, useReactTable, type ColumnDef, type ColumnSizingState } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { ApiError } from '../../api/client';
import type { CollectionDef, FieldDef, Rec } from '../../data/types';
import { ruleError } from '../../lib/field-rules';
import { fromDraft, toDraft } from './field-input';
import { idsOf, targetKey, targetOf, type RefLabels } from './ref-labels';

export type { Rec };
const ROW_HEIGHT = 34;
const SELECT_WIDTH = 40;
const ACTIONS_WIDTH = 104;

export function shortValue(v: unknown): string {
  if (v === undefined) return '';
  if (v === null) return 'null';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Field types a cell edits in place; the others (JSON, arrays, ids) through the form. */
const EDITABLE = new Set(['string', 'email', 'url', 'number', 'integer', 'boolean', 'date', 'enum']);
const SYSTEM_DATES = new Set(['createdAt', 'updatedAt']);

const localTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
function localDate(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : localTime.format(t);
}

export interface CellEdit { rec: Rec; field: FieldDef; value: unknown }

export function RecordsGrid(props: {
  def: CollectionDef;
  rows: Rec[];
  columns: string[];
  sort: string;
  onSort: (sort: string) => void;
  selected: Set<string>;
  onSelect: (ids: Set<string>) => void;
  onEdit: (rec: Rec) => void;
  onJson: (rec: Rec) => void;
  onValue: (rec: Rec, column: string) => void;
  /** Saves one cell (PATCH); rejects with the server's error. */
  onCellSave: (edit: CellEdit) => Promise<void>;
  labels: RefLabels;
  widths: ColumnSizingState;
  onWidths: (w: ColumnSizingState) => void;
  /** A filter or a view is on (the empty grid then says nothing matches). */
  filtered: boolean;
  busy?: boolean;
}) {
  const { rows, selected, def, labels } = props;
  const helper = createColumnHelper<Rec>();
  const sortKey = props.sort.split(',')[0] ?? '';
  const fieldOf = useMemo(() => new Map(def.fields.map((f) => [f._id, f])), [def.fields]);
  const nameOf = (col: string) => fieldOf.get(col)?.name || col;
  const [editing, setEditing] = useState<{ id: string; col: string; draft: string; error?: string; saving?: boolean } | null>(null);
  const errorId = `cell-error-${def._id}`;

  const startEdit = (rec: Rec, col: string) => {
    const field = fieldOf.get(col);
    if (!field || !EDITABLE.has(field.type)) { props.onValue(rec, col); return; }
    setEditing({ id: rec._id, col, draft: toDraft(field, rec[col]) });
  };
  const commit = async (rec: Rec) => {
    if (!editing || editing.saving) return;
    const field = fieldOf.get(editing.col)!;
    const out = fromDraft(field, editing.draft);
    const value = out.value === undefined ? null : out.value;
    const problem = out.error ?? ruleError(field, value);
    if (problem) { setEditing({ ...editing, error: problem }); return; }
    if (JSON.stringify(value) === JSON.stringify(rec[editing.col] ?? null)) { setEditing(null); return; }
    setEditing({ ...editing, saving: true, error: undefined });
    try {
      await props.onCellSave({ rec, field, value });
      setEditing(null);
    } catch (e) {
      const msg = e instanceof ApiError ? (Object.values(e.fieldErrors())[0] && e.code === 'VALIDATION_ERROR' ? `${e.message}` : `${e.code}: ${e.message}`) : String(e);
      setEditing((cur) => cur && { ...cur, saving: false, error: msg });
    }
  };

  const columns = useMemo<ColumnDef<Rec, unknown>[]>(() => [
    helper.display({
      id: '__select',
      size: SELECT_WIDTH,
      enableResizing: false,
      header: () => (
        <input type="checkbox" aria-label="Select all rows of this page"
          checked={rows.length > 0 && rows.every((r) => selected.has(r._id))}
          onChange={(e) => props.onSelect(new Set(e.target.checked ? rows.map((r) => r._id) : []))} />
      ),
      cell: ({ row }) => (
        <input type="checkbox" aria-label={`Select record ${row.original._id}`} checked={selected.has(row.original._id)}
          onChange={(e) => {
            const next = new Set(selected);
            if (e.target.checked) next.add(row.original._id); else next.delete(row.original._id);
            props.onSelect(next);
          }} />
      ),
    }),
    ...props.columns.map((col) => helper.accessor((r) => r[col], {
      id: col,
      size: col === '_id' ? 170 : SYSTEM_DATES.has(col) || fieldOf.get(col)?.type === 'date' ? 190 : 180,
      minSize: 60,
      maxSize: 1200,
      header: () => {
        const dir = sortKey === col ? 'asc' : sortKey === `-${col}` ? 'desc' : undefined;
        const name = nameOf(col);
        return (
          <button type="button" className="sort" title={name !== col ? `${name} (${col})` : col}
            aria-label={`Sort by ${name}${dir === 'asc' ? ', now ascending' : dir === 'desc' ? ', now descending' : ''}`}
            onClick={() => props.onSort(dir === 'asc' ? `-${col}` : dir === 'desc' ? '' : col)}>
            <span className="cell-text">{name}</span> {dir === 'asc' ? '▲' : dir === 'desc' ? '▼' : ''}
          </button>
        );
      },
      cell: ({ getValue, row }) => renderCell(row.original, col, getValue()),
    })),
    helper.display({
      id: '__actions',
      size: ACTIONS_WIDTH,
      enableResizing: false,
      header: () => <span>Actions</span>,
      cell: ({ row }) => (
        <span className="row" style={{ gap: 4, flexWrap: 'nowrap' }}>
          <button type="button" className="small" onClick={() => props.onEdit(row.original)} aria-label={`Edit record ${row.original._id}`}>Edit</button>
          <button type="button" className="small" onClick={() => props.onJson(row.original)} aria-label={`JSON of record ${row.original._id}`}>{'{ }'}</button>
        </span>
      ),
    }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
  ], [props.columns, rows, selected, sortKey, fieldOf, labels, editing]);

  // Plain functions, not components: a component type made in render would remount the input
  // on every keystroke.
  function renderCell(rec: Rec, col: string, value: unknown) {
    const field = fieldOf.get(col);
    if (editing && editing.id === rec._id && editing.col === col && field) return renderEditor(rec, field);
    const target = targetOf(field, col);
    const ids = target ? idsOf(value) : [];
    if (target && ids.length) {
      const found = labels.get(targetKey(target));
      return (
        <span className="cell-links">
          {ids.map((id, i) => {
            const l = found?.get(id);
            return (
              <span key={id}>{i ? ', ' : ''}{l
                ? <Link to={l.href} title={`${l.label} (${id})`} className="cell-text">{l.label}</Link>
                : <span className="cell-text mono" title={found ? `${id} (not found)` : id}>{id}</span>}
              </span>
            );
          })}
        </span>
      );
    }
    if (value === undefined) {
      return field && EDITABLE.has(field.type)
        ? <button type="button" className="cell-button cell-empty" aria-label={`Edit ${nameOf(col)} of ${rec._id}`} onClick={() => startEdit(rec, col)} />
        : null;
    }
    const date = (SYSTEM_DATES.has(col) || field?.type === 'date') ? localDate(value) : undefined;
    const text = date ?? shortValue(value);
    const editable = !!field && EDITABLE.has(field.type);
    return (
      <button type="button" className={`cell-button${value === null ? ' cell-null' : ''}`}
        title={date ? String(value) : text.length > 40 ? `${text.slice(0, 500)}${text.length > 500 ? '…' : ''}` : editable ? `Edit ${nameOf(col)}` : text}
        aria-label={editable ? `${nameOf(col)} of ${rec._id}: ${text.slice(0, 80)}. Edit` : undefined}
        onClick={() => startEdit(rec, col)}>
        <span className="cell-text">{text.length > 300 ? `${text.slice(0, 300)}…` : text}</span>
      </button>
    );
  }

  function renderEditor(rec: Rec, field: FieldDef) {
    const e = editing!;
    const common = {
      autoFocus: true,
      'aria-label': `Edit ${nameOf(field._id)} of ${rec._id}`,
      'aria-invalid': e.error ? true : undefined,
      'aria-describedby': e.error ? errorId : undefined,
      readOnly: e.saving,
      className: `cell-input${e.error ? ' invalid' : ''}`,
      value: e.draft,
      onKeyDown: (ev: React.KeyboardEvent) => {
        if (ev.key === 'Enter') { ev.preventDefault(); void commit(rec); }
        if (ev.key === 'Escape') { ev.preventDefault(); ev.stopPropagation(); setEditing(null); }
      },
      onBlur: () => { if (!e.error && !e.saving) setEditing(null); },
    };
    const set = (v: string) => setEditing((cur) => cur && { ...cur, draft: v, error: undefined });
    if (field.type === 'boolean' || field.type === 'enum') {
      const { readOnly: _readOnly, ...selectProps } = common;
      const values = field.type === 'boolean' ? ['true', 'false'] : (field.options?.values ?? []).map(String);
      return (
        <select {...selectProps} onChange={(ev) => set(ev.target.value)}>
          <option value="">(not set)</option>
          {values.map((v) => <option key={v} value={v}>{v}</option>)}
        </select>
      );
    }
    return <input {...common} type={field.type === 'date' ? 'datetime-local' : 'text'} step={field.type === 'date' ? 1 : undefined}
      inputMode={field.type === 'integer' ? 'numeric' : field.type === 'number' ? 'decimal' : undefined}
      onChange={(ev) => set(ev.target.value)} />;
  }

  const table = useReactTable({
    data: rows, columns, getCoreRowModel: getCoreRowModel(), getRowId: (r) => r._id, manualSorting: true,
    columnResizeMode: 'onChange',
    state: { columnSizing: props.widths },
    onColumnSizingChange: (u) => props.onWidths(typeof u === 'function' ? u(props.widths) : u),
  });
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const leaf = table.getVisibleLeafColumns();
  const template = leaf.map((c) => `${c.getSize()}px`).join(' ');
  // Sticky offsets: the checkbox, then `_id`, at the left; Actions at the right.
  const stickyStyle = (id: string): React.CSSProperties | undefined => (
    id === '__select' ? { position: 'sticky', left: 0, zIndex: 1 }
      : id === '_id' ? { position: 'sticky', left: SELECT_WIDTH, zIndex: 1 }
        : id === '__actions' ? { position: 'sticky', right: 0, zIndex: 1 } : undefined);
  const stickyClass = (id: string) => (id === '_id' ? ' sticky sticky-last' : id === '__select' ? ' sticky' : id === '__actions' ? ' sticky sticky-right' : '');
  const tableRows = table.getRowModel().rows;
  const editError = editing?.error;
  return (
    <>
      {editError ? <div className="error" role="alert" id={errorId}>{editError} <span className="muted small">(Enter to try again, Escape to cancel)</span></div> : null}
      <div className="grid" ref={scroller} role="table" aria-label="Records" aria-rowcount={rows.length + 1} aria-busy={props.busy || undefined}>
        <div role="rowgroup">
          {table.getHeaderGroups().map((g) => (
            <div key={g.id} className="grid-head" role="row" style={{ gridTemplateColumns: template }}>
              {g.headers.map((h) => (
                <div key={h.id} role="columnheader" className={`grid-th${stickyClass(h.column.id)}`} style={stickyStyle(h.column.id)}>
                  {flexRender(h.column.columnDef.header, h.getContext())}
                  {h.column.getCanResize() ? (
                    <div role="separator" aria-orientation="vertical" tabIndex={0} aria-label={`Width of ${nameOf(h.column.id)}`}
                      aria-valuenow={h.column.getSize()} aria-valuemin={60} aria-valuemax={1200}
                      className={`resizer${h.column.getIsResizing() ? ' resizing' : ''}`}
                      onMouseDown={h.getResizeHandler()} onTouchStart={h.getResizeHandler()} onDoubleClick={() => h.column.resetSize()}
                      onKeyDown={(e) => {
                        const step = e.key === 'ArrowRight' ? 20 : e.key === 'ArrowLeft' ? -20 : 0;
                        if (!step) return;
                        e.preventDefault();
                        props.onWidths({ ...props.widths, [h.column.id]: Math.min(1200, Math.max(60, h.column.getSize() + step)) });
                      }} />
                  ) : null}
                </div>
              ))}
            </div>
          ))}
        </div>
        <div role="rowgroup" style={{ height: virtual.getTotalSize(), position: 'relative' }}>
          {virtual.getVirtualItems().map((item) => {
            const row = tableRows[item.index];
            return (
              <div key={row.id} role="row" aria-rowindex={item.index + 2} className={`grid-row${selected.has(row.id) ? ' selected' : ''}`} data-record-id={row.id}
                style={{ gridTemplateColumns: template, top: item.start, height: ROW_HEIGHT }}>
                {row.getVisibleCells().map((cell) => (
                  <div key={cell.id} role="cell" data-column={cell.column.id} className={stickyClass(cell.column.id).trim() || undefined} style={stickyStyle(cell.column.id)}>
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </div>
                ))}
              </div>
            );
          })}
        </div>
        {rows.length === 0 && !props.busy ? <p className="muted" style={{ padding: 12 }}>{props.filtered ? 'No record matches.' : 'No records yet.'}</p> : null}
      </div>
    </>
  );
}

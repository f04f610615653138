// The records grid: a headless table (TanStack Table) whose rows are virtualised (TanStack
// Virtual), fed one server page at a time; sorting is the server's (clicking a header changes
// `sort` in the URL). Cells show a short form; a long value opens in the side panel.
import { useMemo, useRef } from 'react';
import { createColumnHelper, flexRender, getCoreRowModel, useReactTable, type ColumnDef } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';

export type Rec = Record<string, unknown> & { _id: string };
const ROW_HEIGHT = 34;

export function shortValue(v: unknown): string {
  if (v === undefined) return '';
  if (v === null) return 'null';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function RecordsGrid(props: {
  rows: Rec[];
  columns: string[];
  sort: string;
  onSort: (sort: string) => void;
  selected: Set<string>;
  onSelect: (ids: Set<string>) => void;
  onEdit: (rec: Rec) => void;
  onJson: (rec: Rec) => void;
  onValue: (rec: Rec, column: string) => void;
  busy?: boolean;
}) {
  const { rows, selected } = props;
  const helper = createColumnHelper<Rec>();
  const sortKey = props.sort.split(',')[0] ?? '';
  const columns = useMemo<ColumnDef<Rec, unknown>[]>(() => [
    helper.display({
      id: '__select',
      size: 40,
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
    helper.display({
      id: '__actions',
      size: 104,
      header: () => <span>Actions</span>,
      cell: ({ row }) => (
        <span className="row" style={{ gap: 4, flexWrap: 'nowrap' }}>
          <button type="button" className="small" onClick={() => props.onEdit(row.original)} aria-label={`Edit record ${row.original._id}`}>Edit</button>
          <button type="button" className="small" onClick={() => props.onJson(row.original)} aria-label={`JSON of record ${row.original._id}`}>{'{ }'}</button>
        </span>
      ),
    }),
    ...props.columns.map((col) => helper.accessor((r) => r[col], {
      id: col,
      size: col === '_id' ? 170 : col.endsWith('At') ? 200 : 180,
      header: () => {
        const dir = sortKey === col ? 'asc' : sortKey === `-${col}` ? 'desc' : undefined;
        return (
          <button type="button" className="sort" aria-label={`Sort by ${col}${dir === 'asc' ? ', now ascending' : dir === 'desc' ? ', now descending' : ''}`}
            onClick={() => props.onSort(dir === 'asc' ? `-${col}` : dir === 'desc' ? '' : col)}>
            {col} {dir === 'asc' ? '▲' : dir === 'desc' ? '▼' : ''}
          </button>
        );
      },
      cell: ({ getValue, row }) => {
        const v = getValue();
        const text = shortValue(v);
        if (v === undefined) return null;
        return (
          <button type="button" className={`cell-button${v === null ? ' cell-null' : ''}`} title={text.length > 60 ? 'Open the whole value' : text}
            onClick={() => props.onValue(row.original, col)}>
            {text.length > 200 ? `${text.slice(0, 200)}…` : text}
          </button>
        );
      },
    })),
    // eslint-disable-next-line react-hooks/exhaustive-deps
  ], [props.columns, rows, selected, sortKey]);

  const table = useReactTable({ data: rows, columns, getCoreRowModel: getCoreRowModel(), getRowId: (r) => r._id, manualSorting: true });
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const template = table.getVisibleLeafColumns().map((c) => `${c.getSize()}px`).join(' ');
  const tableRows = table.getRowModel().rows;
  return (
    <div className="grid" ref={scroller} role="table" aria-label="Records" aria-rowcount={rows.length + 1} aria-busy={props.busy || undefined}>
      <div role="rowgroup">
        {table.getHeaderGroups().map((g) => (
          <div key={g.id} className="grid-head" role="row" style={{ gridTemplateColumns: template }}>
            {g.headers.map((h) => <div key={h.id} role="columnheader">{flexRender(h.column.columnDef.header, h.getContext())}</div>)}
          </div>
        ))}
      </div>
      <div role="rowgroup" style={{ height: virtual.getTotalSize(), position: 'relative' }}>
        {virtual.getVirtualItems().map((item) => {
          const row = tableRows[item.index];
          return (
            <div key={row.id} role="row" aria-rowindex={item.index + 2} className={`grid-row${selected.has(row.id) ? ' selected' : ''}`} data-record-id={row.id}
              style={{ gridTemplateColumns: template, top: item.start, height: ROW_HEIGHT }}>
              {row.getVisibleCells().map((cell) => <div key={cell.id} role="cell">{flexRender(cell.column.columnDef.cell, cell.getContext())}</div>)}
            </div>
          );
        })}
      </div>
      {rows.length === 0 && !props.busy ? <p className="muted" style={{ padding: 12 }}>No record matches.</p> : null}
    </div>
  );
}

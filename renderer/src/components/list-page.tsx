// The skeleton the console's list pages share: a header (title, what the list is, the create
// button), what goes above the list (a search, a notice), the server's error, the table with its
// empty state, the pager, and the page's dialogs (its children).
import type { ReactNode, TdHTMLAttributes } from 'react';
import { ErrorBox } from './error-box';
import { Pager } from './pager';

export interface Column<T> {
  header: ReactNode;
  cell: (row: T) => ReactNode;
  /** Attributes of the column's cells (class, style, accessible name). */
  td?: TdHTMLAttributes<HTMLTableCellElement>;
}

export interface ListPageProps<T> {
  title: ReactNode;
  intro: ReactNode;
  /** The header's primary button (`New webhook`). */
  create?: { label: string; onClick: () => void };
  /** Between the header and the list (a section the page adds). */
  above?: ReactNode;
  /** Search and filter inputs, in the page's search landmark. */
  search?: ReactNode;
  error?: unknown;
  /** Under the error (what an action just did). */
  notice?: ReactNode;
  columns: Array<Column<T>>;
  /** Undefined while loading. */
  rows: T[] | undefined;
  rowKey: (row: T) => string;
  /** What an empty list says. */
  empty: ReactNode;
  /** Paging, once the first page is in (none under an empty list: "0–0 of 0" says nothing the empty state does not). */
  page?: { total: number; offset: number; limit: number; onOffset: (offset: number) => void; label: string };
  /** The page's dialogs. */
  children?: ReactNode;
}

export function ListPage<T>(props: ListPageProps<T>) {
  const { columns, rows } = props;
  return (
    <div className="stack">
      <div className="page-head" style={{ marginBottom: 0 }}>
        <div>
          <h1>{props.title}</h1>
          <p className="muted">{props.intro}</p>
        </div>
        {props.create ? <button type="button" className="primary" onClick={props.create.onClick}>{props.create.label}</button> : null}
      </div>
      {props.above}
      {props.search ? <div className="toolbar" role="search">{props.search}</div> : null}
      <ErrorBox error={props.error} />
      {props.notice}
      <div className="table-wrap">
        <table className="list">
          <thead><tr>{columns.map((c, i) => <th key={i} scope="col">{c.header}</th>)}</tr></thead>
          <tbody>
            {rows?.map((row) => (
              <tr key={props.rowKey(row)}>{columns.map((c, i) => <td key={i} {...c.td}>{c.cell(row)}</td>)}</tr>
            ))}
            {rows?.length === 0 ? <tr><td colSpan={columns.length} className="muted">{props.empty}</td></tr> : null}
          </tbody>
        </table>
      </div>
      {props.page && props.page.total > 0 ? <Pager {...props.page} /> : null}
      {props.children}
    </div>
  );
}

// Paging through a server list: offset/limit with the total from meta.
export function Pager(props: { total: number; offset: number; limit: number; onOffset: (offset: number) => void; onLimit?: (limit: number) => void; label?: string }) {
  const { total, offset, limit } = props;
  const page = Math.floor(offset / limit) + 1;
  const pages = Math.max(1, Math.ceil(total / limit));
  const from = total === 0 ? 0 : offset + 1;
  const to = Math.min(total, offset + limit);
  return (
    <nav className="pager" aria-label={props.label ?? 'Pages'}>
      <button type="button" className="small" onClick={() => props.onOffset(0)} disabled={offset === 0} aria-label="First page">«</button>
      <button type="button" className="small" onClick={() => props.onOffset(Math.max(0, offset - limit))} disabled={offset === 0} aria-label="Previous page">‹ Previous</button>
      <span aria-live="polite">{from.toLocaleString()}–{to.toLocaleString()} of {total.toLocaleString()} · page {page.toLocaleString()} of {pages.toLocaleString()}</span>
      <button type="button" className="small" onClick={() => props.onOffset(offset + limit)} disabled={offset + limit >= total} aria-label="Next page">Next ›</button>
      <button type="button" className="small" onClick={() => props.onOffset((pages - 1) * limit)} disabled={offset + limit >= total} aria-label="Last page">»</button>
      {props.onLimit ? (
        <label className="check">
          Rows per page
          <select value={limit} onChange={(e) => props.onLimit!(Number(e.target.value))}>
            {[25, 50, 100].map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
        </label>
      ) : null}
    </nav>
  );
}

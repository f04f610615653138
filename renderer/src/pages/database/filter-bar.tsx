// The records filter as typed text (`age >= 30 and role = admin`, or the API's query-string
// form) or as a builder of rows; both edit the same conditions, applied to the URL.
import { useEffect, useId, useState } from 'react';
import { FILTER_OPS, FilterSyntaxError, OP_LABELS, conditionsToParams, conditionsToText, parseFilter, type Condition } from '../../lib/filter';

export function FilterBar(props: { conditions: Condition[]; fields: string[]; onApply: (conditions: Condition[], sort?: string) => void }) {
  const [text, setText] = useState(conditionsToText(props.conditions));
  const [error, setError] = useState<string | null>(null);
  const [builder, setBuilder] = useState(false);
  const [rows, setRows] = useState<Condition[]>(props.conditions);
  const id = useId();
  const applied = conditionsToText(props.conditions);
  useEffect(() => { setText(applied); setRows(props.conditions); setError(null); }, [applied]); // eslint-disable-line react-hooks/exhaustive-deps

  const apply = (conditions: Condition[], sort?: string) => {
    try {
      conditionsToParams(conditions);
      setError(null);
      props.onApply(conditions, sort);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const applyText = () => {
    try {
      const parsed = parseFilter(text);
      apply(parsed.conditions, parsed.sort);
    } catch (e) {
      if (e instanceof FilterSyntaxError) setError(e.message); else throw e;
    }
  };

  return (
    <div className="stack" style={{ gap: 6 }}>
      <form className="row" role="search" onSubmit={(e) => { e.preventDefault(); applyText(); }}>
        <label htmlFor={`${id}-text`} className="muted">Filter</label>
        <input id={`${id}-text`} className="mono" style={{ flex: 1, minWidth: 220 }} value={text} onChange={(e) => setText(e.target.value)}
          placeholder="age >= 30 and role = admin   (or filter[age][$gte]=30&filter[role]=admin)"
          aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-err` : `${id}-help`} spellCheck={false} />
        <button type="submit" className="small">Apply</button>
        {props.conditions.length ? <button type="button" className="small" onClick={() => apply([])}>Clear</button> : null}
        <button type="button" className="small" aria-expanded={builder} onClick={() => setBuilder(!builder)}>Builder</button>
      </form>
      {error ? <span className="field-error" id={`${id}-err`} role="alert">{error}</span>
        : <span className="hint" id={`${id}-help`}>Operators: = != &gt; &gt;= &lt; &lt;= in (a, b) · not in · exists · not exists · contains · startsWith; join with <code>and</code>; quote values with spaces.</span>}
      {builder ? (
        <div className="card filter-rows" aria-label="Filter builder">
          {rows.map((r, i) => (
            <div key={i} className="row">
              <label className="check">Field
                <input list={`${id}-fields`} value={r.field} onChange={(e) => setRows(rows.map((x, j) => j === i ? { ...x, field: e.target.value } : x))} style={{ width: 160 }} />
              </label>
              <label className="check">Operator
                <select value={r.op} onChange={(e) => setRows(rows.map((x, j) => j === i ? { ...x, op: e.target.value as Condition['op'] } : x))}>
                  {FILTER_OPS.map((op) => <option key={op} value={op}>{OP_LABELS[op].symbol} ({OP_LABELS[op].label})</option>)}
                </select>
              </label>
              <label className="check">Value
                {r.op === '$exists'
                  ? <select value={r.value} onChange={(e) => setRows(rows.map((x, j) => j === i ? { ...x, value: e.target.value } : x))}><option value="true">true</option><option value="false">false</option></select>
                  : <input value={r.value} onChange={(e) => setRows(rows.map((x, j) => j === i ? { ...x, value: e.target.value } : x))} placeholder={r.op === '$in' || r.op === '$nin' ? 'a,b,c' : ''} />}
              </label>
              <button type="button" className="small" aria-label={`Remove condition ${i + 1}`} onClick={() => setRows(rows.filter((_, j) => j !== i))}>Remove</button>
            </div>
          ))}
          <datalist id={`${id}-fields`}>{props.fields.map((f) => <option key={f} value={f} />)}</datalist>
          <div className="row">
            <button type="button" className="small" onClick={() => setRows([...rows, { field: props.fields[0] ?? '', op: '$eq', value: '' }])}>Add condition</button>
            <button type="button" className="small primary" onClick={() => apply(rows.filter((r) => r.field))}>Apply conditions</button>
          </div>
        </div>
      ) : null}
    </div>
  );
}

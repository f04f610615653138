// Labels for the ids a records page points to: a `reference` value shows the referenced
// record's first string field, a `user` value and `_owner` the user's name or email, a `file`
// value the file's name. One batched request per target and page of rows
// (`filter[_id][$in]=...`), cached by TanStack Query.
import { enc } from '../../api/client';
import { useRefLabelsQueries } from '../../data/records/ref-labels-query';
import type { CollectionDef, FieldDef } from '../../data/types';

export interface RefTarget { kind: 'record' | 'user' | 'file'; collection?: string }
export interface RefLabel { label: string; href: string }
/** Labels by target key (`record:<collection>`, `user`, `file`) then id. */
export type RefLabels = Map<string, Map<string, RefLabel>>;

export function targetOf(field: FieldDef | undefined, column: string): RefTarget | undefined {
  if (column === '_owner') return { kind: 'user' };
  if (!field) return undefined;
  if (field.type === 'user') return { kind: 'user' };
  if (field.type === 'file') return { kind: 'file' };
  if (field.type === 'reference' && field.options?.collection) return { kind: 'record', collection: String(field.options.collection) };
  return undefined;
}

export function targetKey(t: RefTarget): string { return t.kind === 'record' ? `record:${t.collection}` : t.kind; }

/** The ids of one value: a string id, or a list of them. */
export function idsOf(v: unknown): string[] {
  if (typeof v === 'string' && v) return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string' && !!x);
  return [];
}

/** The first string field of a record other than its id (its schema's order first). */
function recordLabel(r: Record<string, unknown>, def: CollectionDef | undefined): string {
  for (const f of def?.fields ?? []) if ((f.type === 'string' || f.type === 'email') && typeof r[f._id] === 'string' && r[f._id]) return String(r[f._id]);
  for (const [k, v] of Object.entries(r)) if (k !== '_id' && k !== '_owner' && typeof v === 'string' && v && !/At$/.test(k)) return v;
  return String(r._id);
}

function hrefOf(appId: string, t: RefTarget, id: string, label: string): string {
  const app = `/app/${enc(appId)}`;
  if (t.kind === 'user') return `${app}/users?search=${enc(label.includes('@') ? label : id)}`;
  if (t.kind === 'file') return `${app}/storage?search=${enc(label)}`;
  return `${app}/database/${enc(t.collection ?? '')}?${enc('filter[_id]')}=${enc(id)}`;
}

export function useRefLabels(appId: string, def: CollectionDef, columns: string[], rows: Array<Record<string, unknown>>, defs: Map<string, CollectionDef>): RefLabels {
  const wanted = new Map<string, { target: RefTarget; ids: Set<string> }>();
  for (const col of columns) {
    const target = targetOf(def.fields.find((f) => f._id === col), col);
    if (!target) continue;
    const key = targetKey(target);
    const entry = wanted.get(key) ?? { target, ids: new Set<string>() };
    wanted.set(key, entry);
    for (const r of rows) for (const id of idsOf(r[col])) entry.ids.add(id);
  }
  const targets = [...wanted.entries()].filter(([, w]) => w.ids.size > 0);
  const results = useRefLabelsQueries(appId, targets.map(([key, w]) => ({
    key,
    ids: [...w.ids].sort().slice(0, 100),
    path: w.target.kind === 'user' ? '/users' : w.target.kind === 'file' ? '/storage' : `/database/${enc(w.target.collection ?? '')}`,
  })));
  const out: RefLabels = new Map();
  targets.forEach(([key, w], i) => {
    const m = new Map<string, RefLabel>();
    for (const r of results[i]?.data?.data ?? []) {
      const id = String(r._id);
      const label = w.target.kind === 'user' ? String(r.name || r.email || id)
        : w.target.kind === 'file' ? String(r.name ?? id)
          : recordLabel(r, defs.get(w.target.collection ?? ''));
      m.set(id, { label, href: hrefOf(appId, w.target, id, w.target.kind === 'user' ? String(r.email ?? id) : label) });
    }
    out.set(key, m);
  });
  return out;
}

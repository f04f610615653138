// A collection's views (saved filter + sort + columns): open, rename, delete. New views are
// saved from the records grid ("Save as view").
import { Link } from 'react-router';
import { enc } from '../../api/client';
import { useSchemaDeleteMutation } from '../../data/collections/schema-item-delete-mutation';
import { ErrorBox } from '../../components/error-box';
import { conditionsFromViewFilter, conditionsToText } from '../../lib/filter';
import type { CollectionDef } from '../../../../server/shared/models';

export function ViewsTab({ appId, def }: { appId: string; def: CollectionDef }) {
  const del = useSchemaDeleteMutation(appId, def._id, 'views');
  return (
    <div className="stack">
      <p className="muted">A view is a saved filter and sort; <code>GET /database/{def._id}?view=&lt;id&gt;</code> applies it. Save one from the Records tab with <em>Save as view</em>.</p>
      <ErrorBox error={del.error} />
      <table className="list">
        <thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Filter</th><th scope="col">Sort</th><th scope="col">Actions</th></tr></thead>
        <tbody>
          {def.views.map((v) => (
            <tr key={v._id}>
              <td><Link to={`?view=${enc(v._id)}`}>{v.name}</Link></td>
              <td><code>{v._id}</code></td>
              <td className="mono small">{conditionsToText(conditionsFromViewFilter(v.filter)) || <span className="muted">all records</span>}</td>
              <td className="mono small">{v.sort ?? ''}</td>
              <td><button type="button" className="small" onClick={() => del.mutate(v._id)} aria-label={`Delete view ${v.name}`}>Delete</button></td>
            </tr>
          ))}
          {def.views.length === 0 ? <tr><td colSpan={5} className="muted">No view yet.</td></tr> : null}
        </tbody>
      </table>
    </div>
  );
}

// `/app/{app_id}/database/{collection}`: the records grid and the collection's schema (fields,
// views, indexes) and settings, as tabs (`?tab=`).
import { useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { ErrorBox } from '../../components/error-box';
import { useCollectionQuery } from '../../data/collections/collection-query';
import { RecordsTab } from './records-tab';
import { FieldsTab } from './fields-tab';
import { ViewsTab } from './views-tab';
import { IndexesTab } from './indexes-tab';
import { CollectionDialog, DeleteCollectionDialog } from './collections-page';

const TABS = [['records', 'Records'], ['fields', 'Fields'], ['views', 'Views'], ['indexes', 'Indexes']] as const;

export function RecordsPage() {
  const { appId = '', collection = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const tab = params.get('tab') ?? 'records';
  const def = useCollectionQuery(appId, collection);
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  return (
    <div className="stack" style={{ gap: 8 }}>
      <div className="page-head" style={{ marginBottom: 0 }}>
        <div>
          <div className="muted small"><Link to={`/app/${appId}/database`}>Database</Link> /</div>
          <h1><code>{collection}</code>{def.data && def.data.name !== collection ? <span className="muted"> · {def.data.name}</span> : null}</h1>
          {def.data ? <p className="muted small">Read: {def.data.setting.read} · create: {def.data.setting.write} · change: {def.data.setting.update} · delete: {def.data.setting.remove ?? def.data.setting.update}</p> : null}
        </div>
        <div className="toolbar">
          <button type="button" className="small" onClick={() => setEditing(true)} disabled={!def.data}>Name and access</button>
          <button type="button" className="small" onClick={() => setDeleting(true)} disabled={!def.data}>Delete collection</button>
        </div>
      </div>
      <div className="tabs" role="tablist" aria-label="Collection">
        {TABS.map(([id, label]) => (
          <button key={id} type="button" role="tab" aria-selected={tab === id} aria-controls="tab-panel" id={`tab-${id}`}
            onClick={() => { const p = new URLSearchParams(); if (id !== 'records') p.set('tab', id); setParams(p); }}>
            {label}{def.data && id !== 'records' ? ` (${(def.data[id as 'fields' | 'views' | 'indexes']).length})` : ''}
          </button>
        ))}
      </div>
      <ErrorBox error={def.error} />
      <div role="tabpanel" id="tab-panel" aria-labelledby={`tab-${tab}`}>
        {def.data ? (
          tab === 'fields' ? <FieldsTab appId={appId} def={def.data} />
            : tab === 'views' ? <ViewsTab appId={appId} def={def.data} />
              : tab === 'indexes' ? <IndexesTab appId={appId} def={def.data} />
                : <RecordsTab appId={appId} def={def.data} />
        ) : null}
      </div>
      <CollectionDialog appId={appId} collection={editing && def.data ? def.data : null} onClose={() => setEditing(false)} />
      <DeleteCollectionDialog appId={appId} collection={deleting && def.data ? def.data : null} onClose={() => setDeleting(false)} onDeleted={() => navigate(`/app/${appId}/database`)} />
    </div>
  );
}

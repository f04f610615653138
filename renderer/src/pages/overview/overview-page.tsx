// `/app/{app_id}`: the workspace's addresses, counts, and snippets that work as pasted (they
// carry a freshly minted admin token).
import { Link, useParams } from 'react-router';
import { apiBase } from '../../api/client';
import { CopyButton } from '../../components/copy-button';
import { ErrorBox } from '../../components/error-box';
import { useCountsQuery } from '../../data/overview/counts-query';
import { useSnippetTokenQuery } from '../../data/overview/snippet-token-query';

const COUNTED: Array<{ label: string; path: string; page: string }> = [
  { label: 'Collections', path: '/database', page: 'database' },
  { label: 'Users', path: '/users', page: 'users' },
  { label: 'Files', path: '/storage', page: 'storage' },
  { label: 'Chat channels', path: '/chats/channels', page: 'chats' },
  { label: 'Webhooks', path: '/webhooks', page: 'webhooks' },
  { label: 'Scenarios', path: '/scenarios', page: 'scenarios' },
  { label: 'Secrets', path: '/credentials', page: 'credentials' },
];

export function OverviewPage() {
  const { appId = '' } = useParams();
  const base = `${apiBase()}/app/${appId}`;
  const realtime = `${base.replace(/^http/, 'ws')}/realtime`;
  const openapi = `${base}/openapi.json`;
  const counts = useCountsQuery(appId, COUNTED.map((c) => c.path));
  const token = useSnippetTokenQuery(appId);
  const t = token.data ?? '<ACCESS_TOKEN>';
  const curl = `curl -s ${base}/database \\\n  -H 'Authorization: Bearer ${t}'`;
  const fetchSnippet = `const res = await fetch('${base}/database', {\n  headers: { Authorization: 'Bearer ${t}' },\n});\nconsole.log(await res.json());`;
  const login = `curl -s -X POST ${base}/auth/login \\\n  -H 'Content-Type: application/json' \\\n  -d '{"email":"admin@example.com","password":"…"}'`;
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Workspace <code>{appId}</code></h1>
          <p className="muted">Point your app or your tests at the API base below.</p>
        </div>
        <Link className="button" to={`/app/${appId}/api/`}>API reference</Link>
      </div>
      <ErrorBox error={counts.error} />
      <div className="card">
        <dl className="kv">
          <dt>API base URL</dt><dd><code>{base}</code><CopyButton text={base} what="the API base URL" /></dd>
          <dt>Realtime URL</dt><dd><code>{realtime}?token=…</code><CopyButton text={realtime} what="the realtime URL" /></dd>
          <dt>OpenAPI document</dt><dd><a href={openapi}><code>{openapi}</code></a><CopyButton text={openapi} what="the OpenAPI URL" /></dd>
        </dl>
      </div>
      <div className="grid-2" style={{ gridTemplateColumns: 'repeat(auto-fit, minmax(150px, 1fr))' }}>
        {COUNTED.map((c, i) => (
          <Link key={c.label} to={`/app/${appId}/${c.page}`} className="card" style={{ textDecoration: 'none', color: 'inherit' }}>
            <div className="muted">{c.label}</div>
            <div className="stat">{counts.data ? counts.data[i].toLocaleString() : '…'}</div>
          </Link>
        ))}
      </div>
      <div className="grid-2">
        <div className="card stack">
          <div className="row"><h2 style={{ flex: 1 }}>curl</h2><CopyButton text={curl} what="the curl snippet" /></div>
          <pre>{curl}</pre>
        </div>
        <div className="card stack">
          <div className="row"><h2 style={{ flex: 1 }}>fetch</h2><CopyButton text={fetchSnippet} what="the fetch snippet" /></div>
          <pre>{fetchSnippet}</pre>
        </div>
        <div className="card stack">
          <div className="row"><h2 style={{ flex: 1 }}>Sign in as a user</h2><CopyButton text={login} what="the login snippet" /></div>
          <pre>{login}</pre>
          <p className="muted small">The snippets' admin token was minted for you now; it expires after the server's token lifetime (15 minutes by default).</p>
        </div>
      </div>
    </div>
  );
}

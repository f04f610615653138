// `/app/{app_id}/graphql`: GraphiQL (the `graphiql` package, bundled into the console and loaded
// on this page only; nothing from another host) on the workspace's GraphQL endpoint, with a
// freshly minted admin token.
import { useEffect, useMemo, useState } from 'react';
import { useParams } from 'react-router';
import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import { adminToken } from '../../api/client';
import { ErrorBox } from '../../components/error-box';

const DEFAULT_QUERY = `# GraphQL of this workspace: one list, one by-id query and create / update / replace / delete
# per collection; users, files, channels and messages. Ctrl-Enter runs the query.
query WorkspaceFields {
  __schema { queryType { fields { name } } }
}
`;

export default function GraphqlPage() {
  const { appId = '' } = useParams();
  const [token, setToken] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let cancelled = false;
    adminToken(appId, true).then((t) => { if (!cancelled) setToken(t); }, (err) => { if (!cancelled) setError(err); });
    return () => { cancelled = true; };
  }, [appId]);
  const fetcher = useMemo(() => async (params: unknown) => {
    const res = await fetch(`/api/v2/app/${encodeURIComponent(appId)}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(params),
    });
    return res.json();
  }, [appId, token]);
  return (
    <>
      <h1>GraphQL</h1>
      <p className="muted">
        <code>/api/v2/app/{appId}/graphql</code>, run with an administrator token of this workspace.
      </p>
      {error ? <ErrorBox error={error} /> : !token ? <p className="muted">Loading GraphiQL…</p> : (
        <div className="graphiql-host" style={{ height: 'calc(100vh - 180px)', minHeight: 400 }} data-testid="graphiql">
          <GraphiQL fetcher={fetcher} defaultQuery={DEFAULT_QUERY} />
        </div>
      )}
    </>
  );
}

// The console: sign-in gate, data layer, and the routes of its pages (docs/console.md).
import { lazy, Suspense, useEffect, useState } from 'react';
import { BrowserRouter, Route, Routes } from 'react-router';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { ApiError, consoleApi, forgetAdminTokens, setUnauthorizedHandler } from './api/client';
import { loadConsoleToken, setConsoleToken } from './api/session';
import { SignIn } from './pages/sign-in';
import { Shell } from './components/shell';
import { WorkspacesPage } from './pages/workspaces/workspaces-page';
import { OverviewPage } from './pages/overview/overview-page';
import { CollectionsPage } from './pages/database/collections-page';
import { RecordsPage } from './pages/database/records-page';
import { UsersPage } from './pages/users/users-page';
import { OutboxPage } from './pages/outbox/outbox-page';
import { RequestsPage } from './pages/requests/requests-page';
import { StoragePage } from './pages/storage/storage-page';
import { WebhooksPage } from './pages/webhooks/webhooks-page';
import { CredentialsPage } from './pages/credentials/credentials-page';
import { ApiKeysPage } from './pages/api-keys/api-keys-page';
import { OAuthClientsPage } from './pages/oauth-clients/oauth-clients-page';
import { ScenariosPage } from './pages/scenarios/scenarios-page';
import { ChatsPage } from './pages/chats/chats-page';
import { forgetActAsTokens } from './api/act-as';

// Swagger UI is large: loaded by the API reference page only.
const ApiReferencePage = lazy(() => import('./pages/api-reference/api-page'));
const GraphqlPage = lazy(() => import('./pages/graphql/graphql-page'));

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 5_000,
      refetchOnWindowFocus: false,
      retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 2,
    },
  },
});

type State = { kind: 'loading' } | { kind: 'signed-out'; reason?: string } | { kind: 'signed-in' };

export function App() {
  const [state, setState] = useState<State>({ kind: 'loading' });

  const check = async (token: string | undefined) => {
    if (!token) { setState({ kind: 'signed-out' }); return; }
    try {
      await consoleApi('/workspaces', { query: { limit: 1 } });
      setState({ kind: 'signed-in' });
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) {
        setConsoleToken(undefined);
        setState({ kind: 'signed-out', reason: 'The server refused that console token.' });
      } else {
        setState({ kind: 'signed-out', reason: e instanceof Error ? e.message : String(e) });
      }
    }
  };

  useEffect(() => {
    setUnauthorizedHandler(() => {
      setConsoleToken(undefined);
      forgetAdminTokens();
      queryClient.clear();
      setState({ kind: 'signed-out', reason: 'The console token is no longer accepted (the server may have a new one).' });
    });
    void loadConsoleToken().then(check);
  }, []);

  if (state.kind === 'loading') return <p className="muted" style={{ padding: 24 }}>Loading…</p>;
  if (state.kind === 'signed-out') {
    return <SignIn reason={state.reason} onToken={(t) => { setConsoleToken(t); setState({ kind: 'loading' }); void check(t); }} />;
  }
  const signOut = () => { setConsoleToken(undefined); forgetAdminTokens(); forgetActAsTokens(); queryClient.clear(); setState({ kind: 'signed-out' }); };
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <Routes>
          <Route element={<Shell onSignOut={signOut} />}>
            <Route index element={<WorkspacesPage />} />
            <Route path="app/:appId">
              <Route index element={<OverviewPage />} />
              <Route path="database" element={<CollectionsPage />} />
              <Route path="database/:collection" element={<RecordsPage />} />
              <Route path="users" element={<UsersPage />} />
              <Route path="storage" element={<StoragePage />} />
              <Route path="chats/:channelId?" element={<ChatsPage />} />
              <Route path="webhooks/:id?" element={<WebhooksPage />} />
              <Route path="scenarios/:id?" element={<ScenariosPage />} />
              <Route path="credentials" element={<CredentialsPage />} />
              <Route path="api-keys" element={<ApiKeysPage />} />
              <Route path="oauth-clients" element={<OAuthClientsPage />} />
              <Route path="outbox" element={<OutboxPage />} />
              <Route path="requests" element={<RequestsPage />} />
              <Route path="graphql" element={<Suspense fallback={<p className="muted">Loading GraphiQL…</p>}><GraphqlPage /></Suspense>} />
              <Route path="api/*" element={<Suspense fallback={<p className="muted">Loading the API reference…</p>}><ApiReferencePage /></Suspense>} />
            </Route>
            <Route path="*" element={<NotFound />} />
          </Route>
        </Routes>
      </BrowserRouter>
    </QueryClientProvider>
  );
}

function NotFound() {
  return (
    <div>
      <h1>Page not found</h1>
      <p>This address is not a page of the console. <a href="/">Back to the workspaces</a>.</p>
    </div>
  );
}

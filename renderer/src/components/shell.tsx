// The frame around every page: server address and health, workspace switcher, theme, sign-out,
// and the workspace's navigation (every page of the workspace).
import { Link, NavLink, Outlet, useLocation, useNavigate, useParams } from 'react-router';
import { useState } from 'react';
import { applyTheme, storedTheme, type ThemeChoice } from '../api/theme';
import { useHealthQuery } from '../data/health/health-query';
import { useWorkspaceSwitcherQuery } from '../data/workspaces/workspaces-query';

export const NAV: Array<{ path: string; label: string; group: string; later?: boolean }> = [
  { path: '', label: 'Overview', group: 'Workspace' },
  { path: 'database', label: 'Database', group: 'Workspace' },
  { path: 'users', label: 'Users', group: 'Workspace' },
  { path: 'storage', label: 'Storage', group: 'Workspace' },
  { path: 'chats', label: 'Chats', group: 'Workspace' },
  { path: 'webhooks', label: 'Webhooks', group: 'Automation' },
  { path: 'scenarios', label: 'Scenarios', group: 'Automation' },
  { path: 'credentials', label: 'Secrets', group: 'Automation' },
  { path: 'api-keys', label: 'API keys', group: 'Automation' },
  { path: 'oauth-clients', label: 'OAuth clients', group: 'Automation' },
  { path: 'outbox', label: 'Outbox', group: 'Inspect' },
  { path: 'requests', label: 'Request log', group: 'Inspect' },
  { path: 'api/', label: 'API reference', group: 'Inspect' },
  { path: 'graphql', label: 'GraphQL', group: 'Inspect' },
];

export function Shell({ onSignOut }: { onSignOut: () => void }) {
  const { appId } = useParams();
  const health = useHealthQuery();
  return (
    <div className={`app${appId ? '' : ' no-sidebar'}`}>
      <a className="skip-link" href="#main">Skip to content</a>
      <header className="topbar">
        <Link to="/" className="brand">Homebase</Link>
        {appId ? <WorkspaceSwitcher appId={appId} /> : null}
        <span className="spacer" />
        <span className="server-status" role="status" title="Server health, checked every 10 s">
          <span className={`dot ${health.isError ? 'down' : health.data ? 'ok' : ''}`} aria-hidden="true" />
          <span className="mono">{window.location.host}</span>
          <span>{health.isError ? 'unreachable' : health.data ? `ok · v${health.data.version}` : 'checking…'}</span>
        </span>
        <ThemeSwitch />
        <button type="button" className="small" onClick={onSignOut}>Sign out</button>
      </header>
      {appId ? <Sidebar appId={appId} /> : null}
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}

function Sidebar({ appId }: { appId: string }) {
  let group = '';
  return (
    <nav className="sidebar" aria-label="Workspace pages">
      <ul>
        <li><Link to="/">← All workspaces</Link></li>
        {NAV.map((item) => {
          const head = item.group !== group ? <li className="group" aria-hidden="true">{(group = item.group)}</li> : null;
          return [
            head,
            <li key={item.path}>
              <NavLink to={`/app/${appId}${item.path ? `/${item.path}` : ''}`} end={item.path === ''}>
                {item.label}{item.later ? <span className="later">(soon)</span> : null}
              </NavLink>
            </li>,
          ];
        })}
      </ul>
    </nav>
  );
}

function WorkspaceSwitcher({ appId }: { appId: string }) {
  const navigate = useNavigate();
  const location = useLocation();
  const list = useWorkspaceSwitcherQuery();
  const ids = list.data?.data.map((w) => w._id) ?? [appId];
  if (!ids.includes(appId)) ids.unshift(appId);
  return (
    <label className="check">
      <span className="muted">Workspace</span>
      <select
        value={appId}
        onChange={(e) => {
          // Same area in the other workspace (the collection or id part does not carry over).
          const area = location.pathname.split('/')[3] ?? '';
          navigate(`/app/${e.target.value}${area ? `/${area}${area === 'api' ? '/' : ''}` : ''}`);
        }}
      >
        {ids.map((id) => <option key={id} value={id}>{id}</option>)}
      </select>
    </label>
  );
}

function ThemeSwitch() {
  const [theme, setTheme] = useState<ThemeChoice>(storedTheme());
  return (
    <label className="check">
      <span className="muted">Theme</span>
      <select value={theme} onChange={(e) => { const t = e.target.value as ThemeChoice; setTheme(t); applyTheme(t); }}>
        <option value="system">System</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  );
}

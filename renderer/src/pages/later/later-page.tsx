// The pages of the console's second part, present in the navigation: each says what it will
// hold and where its API already is, so the page is honest about being unfinished.
import { Link, useParams } from 'react-router';

const AREAS: Record<string, { title: string; holds: string; api: string }> = {
  storage: { title: 'Storage', holds: 'files with paging and search, drag-and-drop resumable uploads (tus) with pause and resume, previews, download and delete', api: '/storage' },
  chats: { title: 'Chats', holds: 'channels and their members, and messages live over the realtime WebSocket', api: '/chats/channels' },
  webhooks: { title: 'Webhooks', holds: 'webhooks (events, collection filter, active toggle, test event) and their delivery log, live', api: '/webhooks' },
  scenarios: { title: 'Scenarios', holds: 'an editor for triggers and steps, activation, run now, and executions step by step', api: '/scenarios' },
  credentials: { title: 'Secrets', holds: 'secrets to create, replace and delete; their values are write-only and never shown', api: '/credentials' },
};

export function LaterPage({ area }: { area: keyof typeof AREAS }) {
  const { appId = '' } = useParams();
  const a = AREAS[area];
  return (
    <div className="stack">
      <h1>{a.title}</h1>
      <div className="notice">
        <p><strong>Not built yet in the console.</strong> This page will hold {a.holds}.</p>
        <p>The API already works: <code>/api/app/{appId}{a.api}</code>; try it in the <Link to={`/app/${appId}/api/`}>API reference</Link>.</p>
      </div>
    </div>
  );
}

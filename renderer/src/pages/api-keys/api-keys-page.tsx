// `/app/{app_id}/api-keys`: the workspace's API keys (v2 `/api-keys`). A new key's value is in
// the creation answer only: shown once in a dialog with a copy button, kept in this component's
// state until the dialog closes, never cached, stored or shown again. Revoking asks first.
import { useState } from 'react';
import { useParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, enc } from '../../api/client';
import { keys } from '../../api/keys';
import { workspaceApiV2 } from '../../api/v2';
import { CopyButton } from '../../components/copy-button';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import { TextField } from '../../components/text-field';
import { API_KEY_SCOPES } from './scopes';

interface ApiKey { _id: string; name: string; scopes: string[]; expiresAt: string | null; prefix: string; principalId: string; createdAt: string; lastUsedAt?: string | null }

const when = (iso: string) => new Date(iso).toLocaleString();

export function ApiKeysPage() {
  const { appId = '' } = useParams();
  const qc = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [shown, setShown] = useState<{ name: string; key: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [error, setError] = useState<unknown>(null);
  const list = useQuery({
    queryKey: keys.list(appId, 'api-keys'),
    queryFn: async () => (await workspaceApiV2<ApiKey[]>(appId, '/api-keys')).data,
  });
  const invalidate = () => qc.invalidateQueries({ queryKey: keys.list(appId, 'api-keys') });
  const hasLastUsed = list.data?.some((k) => k.lastUsedAt !== undefined) ?? false;
  return (
    <div className="stack">
      <div className="page-head" style={{ marginBottom: 0 }}>
        <div>
          <h1>API keys</h1>
          <p className="muted">For servers and scripts acting without a user: sent in the <code>X-API-Key</code> header on v1 and v2, each limited to its scopes. A key&apos;s value is shown <strong>once</strong>, when it is made.</p>
        </div>
        <button type="button" className="primary" onClick={() => setCreating(true)}>New API key</button>
      </div>
      <ErrorBox error={list.error ?? error} />
      <div className="table-wrap">
        <table className="list">
          <thead><tr>
            <th scope="col">Name</th><th scope="col">Key</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Expires</th>
            {hasLastUsed ? <th scope="col">Last used</th> : null}<th scope="col">Actions</th>
          </tr></thead>
          <tbody>
            {list.data?.map((k) => (
              <tr key={k._id}>
                <td>{k.name}</td>
                <td className="mono small">{k.prefix}_…</td>
                <td className="small">{k.scopes.map((s) => <code key={s} style={{ marginRight: 6, whiteSpace: 'nowrap' }}>{s}</code>)}</td>
                <td className="muted small">{when(k.createdAt)}</td>
                <td className="small">{k.expiresAt ? when(k.expiresAt) : <span className="muted">never</span>}</td>
                {hasLastUsed ? <td className="muted small">{k.lastUsedAt ? when(k.lastUsedAt) : 'never'}</td> : null}
                <td><button type="button" className="small" onClick={() => setRevoking(k)} aria-label={`Revoke ${k.name}`}>Revoke</button></td>
              </tr>
            ))}
            {list.data?.length === 0 ? <tr><td colSpan={hasLastUsed ? 7 : 6} className="muted">No API key yet.</td></tr> : null}
          </tbody>
        </table>
      </div>
      <Dialog open={creating} title="New API key" onClose={() => setCreating(false)}>
        {creating ? <ApiKeyForm appId={appId} onDone={(made) => { setCreating(false); setShown(made); void invalidate(); }} /> : null}
      </Dialog>
      <Dialog open={!!shown} title="Your new API key" onClose={() => setShown(null)}>
        {shown ? (
          <div className="stack">
            <p className="notice" role="status"><strong>Copy it now: you will not see it again.</strong> Homebase keeps only a hash of it; if it is lost, revoke it and make another.</p>
            <div className="row" style={{ flexWrap: 'nowrap', alignItems: 'flex-start' }}>
              <code aria-label={`Value of ${shown.name}`} style={{ wordBreak: 'break-all' }}>{shown.key}</code>
              <CopyButton text={shown.key} what="the API key" />
            </div>
            <p className="muted small">Send it as <code>X-API-Key: {'<key>'}</code> (never together with an <code>Authorization</code> header).</p>
            <div className="form-actions"><button type="button" className="primary" onClick={() => setShown(null)}>I have copied it</button></div>
          </div>
        ) : null}
      </Dialog>
      <Dialog open={!!revoking} title={`Revoke ${revoking?.name ?? ''}`} onClose={() => setRevoking(null)}>
        <div className="stack">
          <p>Requests made with <code>{revoking?.prefix}_…</code> will be refused (401) at once. This cannot be undone.</p>
          <div className="form-actions">
            <button type="button" onClick={() => setRevoking(null)}>Cancel</button>
            <button type="button" className="danger" onClick={async () => {
              try { setError(null); await workspaceApiV2(appId, `/api-keys/${enc(revoking!._id)}`, { method: 'DELETE' }); } catch (e) { setError(e); }
              setRevoking(null);
              void invalidate();
            }}>Revoke key</button>
          </div>
        </div>
      </Dialog>
    </div>
  );
}

function ApiKeyForm({ appId, onDone }: { appId: string; onDone: (made: { name: string; key: string }) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [expires, setExpires] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      // A datetime-local value is the browser's local time; the server wants an ISO instant.
      const expiresAt = expires ? new Date(expires).toISOString() : null;
      const made = await workspaceApiV2<ApiKey & { key: string }>(appId, '/api-keys', { method: 'POST', body: { name, scopes, expiresAt } });
      onDone({ name: made.data.name, key: made.data.key });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const errs = error instanceof ApiError ? error.fieldErrors() : {};
  const scopeError = errs.scopes ?? Object.entries(errs).find(([f]) => f.startsWith('scopes.'))?.[1];
  return (
    <form className="form" onSubmit={(e) => { e.preventDefault(); void submit(); }} autoComplete="off">
      <TextField label="Name" value={name} onChange={setName} error={errs.name} required hint="What uses it, e.g. nightly-export." />
      <fieldset aria-describedby={scopeError ? 'api-key-scope-error' : undefined}>
        <legend>Scopes *</legend>
        <div className="stack" style={{ gap: 4 }}>
          {API_KEY_SCOPES.map(({ scope, opens }) => (
            <label key={scope} className="check">
              <input type="checkbox" style={{ flexShrink: 0 }} checked={scopes.includes(scope)} onChange={(e) => setScopes(e.target.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))} />
              <code>{scope}</code> <span className="muted small">{opens}</span>
            </label>
          ))}
        </div>
        {scopeError ? <span className="field-error" id="api-key-scope-error">{scopeError}</span> : null}
      </fieldset>
      <TextField label="Expires" type="datetime-local" value={expires} onChange={setExpires} error={errs.expiresAt}
        hint="Optional; your local time. Empty: the key does not expire. It must be after the workspace's clock." />
      <ErrorBox error={error} />
      <div className="form-actions"><button type="submit" className="primary" disabled={busy || !name.trim() || scopes.length === 0}>Create key</button></div>
    </form>
  );
}

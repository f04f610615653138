// `/app/{app_id}/oauth-clients`: the workspace's OAuth clients (v2 `/oauth/clients`) and the
// address of its authorization server metadata. A confidential client's secret is in the creation
// answer only: shown once in a dialog with a copy button, kept in this component's state until the
// dialog closes, never cached, stored or shown again. Deleting asks first: it ends the client's grants.
import { useId, useState } from 'react';
import { useParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, apiBase, enc } from '../../api/client';
import { keys } from '../../api/keys';
import { workspaceApiV2 } from '../../api/v2';
import { CopyButton } from '../../components/copy-button';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import { TextField } from '../../components/text-field';
import { API_KEY_SCOPES } from '../api-keys/scopes';

interface OAuthClient { _id: string; name: string; redirectUris: string[]; scopes: string[]; confidential: boolean; principalId: string; createdAt: string }

const when = (iso: string) => new Date(iso).toLocaleString();

export function OAuthClientsPage() {
  const { appId = '' } = useParams();
  const qc = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [shown, setShown] = useState<{ name: string; id: string; secret: string } | null>(null);
  const [deleting, setDeleting] = useState<OAuthClient | null>(null);
  const [error, setError] = useState<unknown>(null);
  const list = useQuery({
    queryKey: keys.list(appId, 'oauth-clients'),
    queryFn: async () => (await workspaceApiV2<OAuthClient[]>(appId, '/oauth/clients')).data,
  });
  const invalidate = () => qc.invalidateQueries({ queryKey: keys.list(appId, 'oauth-clients') });
  const issuer = `${apiBase()}/v2/app/${encodeURIComponent(appId)}/oauth`;
  const metadataUrl = `${issuer}/.well-known/oauth-authorization-server`;
  return (
    <div className="stack">
      <div className="page-head" style={{ marginBottom: 0 }}>
        <div>
          <h1>OAuth clients</h1>
          <p className="muted">Applications that get tokens from this workspace&apos;s OAuth 2.0 server: users&apos; tokens through the authorization code flow (PKCE), a confidential client&apos;s own through client credentials. A client secret is shown <strong>once</strong>, when the client is made.</p>
        </div>
        <button type="button" className="primary" onClick={() => setCreating(true)}>New OAuth client</button>
      </div>
      <section aria-labelledby="oauth-metadata-h" className="stack" style={{ gap: 4 }}>
        <h2 id="oauth-metadata-h" style={{ fontSize: '1rem', margin: 0 }}>Authorization server metadata</h2>
        <div className="row" style={{ flexWrap: 'nowrap', alignItems: 'flex-start' }}>
          <code aria-label="Metadata URL" style={{ wordBreak: 'break-all' }}>{metadataUrl}</code>
          <CopyButton text={metadataUrl} what="the metadata URL" />
        </div>
        <p className="muted small">RFC 8414: the endpoints (<code style={{ wordBreak: 'break-all' }}>{issuer}/authorize</code>, <code>/token</code>, <code>/revoke</code>), grants and scopes a client library needs.</p>
      </section>
      <ErrorBox error={list.error ?? error} />
      <div className="table-wrap">
        <table className="list">
          <thead><tr>
            <th scope="col">Name</th><th scope="col">Client ID</th><th scope="col">Type</th><th scope="col">Redirect URIs</th>
            <th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Actions</th>
          </tr></thead>
          <tbody>
            {list.data?.map((c) => (
              <tr key={c._id}>
                <td>{c.name}</td>
                <td className="mono small"><span style={{ whiteSpace: 'nowrap' }}>{c._id} <CopyButton text={c._id} what={`the client ID of ${c.name}`} /></span></td>
                <td className="small">{c.confidential ? 'confidential' : 'public'}</td>
                <td className="small" style={{ minWidth: '14rem' }}>{c.redirectUris.length ? c.redirectUris.map((u) => <div key={u} className="mono" style={{ wordBreak: 'break-all' }}>{u}</div>) : <span className="muted">none</span>}</td>
                <td className="small">{c.scopes.map((s) => <code key={s} style={{ marginRight: 6, whiteSpace: 'nowrap' }}>{s}</code>)}</td>
                <td className="muted small">{when(c.createdAt)}</td>
                <td><button type="button" className="small" onClick={() => setDeleting(c)} aria-label={`Delete ${c.name}`}>Delete</button></td>
              </tr>
            ))}
            {list.data?.length === 0 ? <tr><td colSpan={7} className="muted">No OAuth client yet.</td></tr> : null}
          </tbody>
        </table>
      </div>
      <Dialog open={creating} title="New OAuth client" onClose={() => setCreating(false)}>
        {creating ? <OAuthClientForm appId={appId} onDone={(made) => { setCreating(false); if (made.clientSecret) setShown({ name: made.name, id: made._id, secret: made.clientSecret }); void invalidate(); }} /> : null}
      </Dialog>
      <Dialog open={!!shown} title="Your new client secret" onClose={() => setShown(null)}>
        {shown ? (
          <div className="stack">
            <p className="notice" role="status"><strong>Copy it now: you will not see it again.</strong> Homebase keeps only a hash of it; if it is lost, delete the client and make another.</p>
            <p className="small">Client ID <code>{shown.id}</code></p>
            <div className="row" style={{ flexWrap: 'nowrap', alignItems: 'flex-start' }}>
              <code aria-label={`Secret of ${shown.name}`} style={{ wordBreak: 'break-all' }}>{shown.secret}</code>
              <CopyButton text={shown.secret} what="the client secret" />
            </div>
            <p className="muted small">The client authenticates at <code>/token</code> with HTTP Basic (<code>client_id:client_secret</code>) or <code>client_secret_post</code>.</p>
            <div className="form-actions"><button type="button" className="primary" onClick={() => setShown(null)}>I have copied it</button></div>
          </div>
        ) : null}
      </Dialog>
      <Dialog open={!!deleting} title={`Delete ${deleting?.name ?? ''}`} onClose={() => setDeleting(null)}>
        <div className="stack">
          <p>Deleting the client ends all its grants at once: every access and refresh token it holds, users&apos; included, is refused from now on, and its secret no longer works. This cannot be undone.</p>
          <div className="form-actions">
            <button type="button" onClick={() => setDeleting(null)}>Cancel</button>
            <button type="button" className="danger" onClick={async () => {
              try { setError(null); await workspaceApiV2(appId, `/oauth/clients/${enc(deleting!._id)}`, { method: 'DELETE' }); } catch (e) { setError(e); }
              setDeleting(null);
              void invalidate();
            }}>Delete client</button>
          </div>
        </div>
      </Dialog>
    </div>
  );
}

function OAuthClientForm({ appId, onDone }: { appId: string; onDone: (made: OAuthClient & { clientSecret?: string }) => void }) {
  const id = useId();
  const [name, setName] = useState('');
  const [uris, setUris] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [confidential, setConfidential] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      const redirectUris = uris.split('\n').map((u) => u.trim()).filter(Boolean);
      const made = await workspaceApiV2<OAuthClient & { clientSecret?: string }>(appId, '/oauth/clients', { method: 'POST', body: { name, redirectUris, scopes, confidential } });
      onDone(made.data);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const errs = error instanceof ApiError ? error.fieldErrors() : {};
  const under = (field: string) => errs[field] ?? Object.entries(errs).find(([f]) => f.startsWith(`${field}.`))?.[1];
  const uriError = under('redirectUris');
  const scopeError = under('scopes');
  return (
    <form className="form" onSubmit={(e) => { e.preventDefault(); void submit(); }} autoComplete="off">
      <TextField label="Name" value={name} onChange={setName} error={errs.name} required hint="What it is, e.g. the mobile app." />
      <label className="field">
        Redirect URIs
        <textarea value={uris} onChange={(e) => setUris(e.target.value)} rows={3} spellCheck={false}
          aria-invalid={uriError ? true : undefined} aria-describedby={`${id}-uri-hint${uriError ? ` ${id}-uri-err` : ''}`} />
        <span className="hint" id={`${id}-uri-hint`}>One per line, absolute, no fragment; http only for localhost. A public client needs at least one.</span>
        {uriError ? <span className="field-error" id={`${id}-uri-err`}>{uriError}</span> : null}
      </label>
      <fieldset aria-describedby={scopeError ? `${id}-scope-err` : undefined}>
        <legend>Scopes *</legend>
        <div className="stack" style={{ gap: 4 }}>
          {API_KEY_SCOPES.map(({ scope, opens }) => (
            <label key={scope} className="check">
              <input type="checkbox" style={{ flexShrink: 0 }} checked={scopes.includes(scope)} onChange={(e) => setScopes(e.target.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))} />
              <code>{scope}</code> <span className="muted small">{opens}</span>
            </label>
          ))}
        </div>
        {scopeError ? <span className="field-error" id={`${id}-scope-err`}>{scopeError}</span> : null}
      </fieldset>
      <label className="check">
        <input type="checkbox" style={{ flexShrink: 0 }} checked={confidential} onChange={(e) => setConfidential(e.target.checked)} aria-describedby={`${id}-conf-hint`} />
        Confidential (gets a secret)
      </label>
      <span className="hint muted small" id={`${id}-conf-hint`}>A server that can keep a secret: it may use client credentials. Leave it off for a browser or mobile app (a public client, PKCE only).</span>
      <ErrorBox error={error} />
      <div className="form-actions"><button type="submit" className="primary" disabled={busy || !name.trim() || scopes.length === 0}>Create client</button></div>
    </form>
  );
}

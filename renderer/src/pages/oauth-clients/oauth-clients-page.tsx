// `/app/{app_id}/oauth-clients`: the workspace's OAuth clients (v2 `/oauth/clients`) and the
// address of its authorization server metadata. A confidential client's secret is in the creation
// answer only: shown once in a dialog with a copy button, kept in this component's state until the
// dialog closes, never cached, stored or shown again. Deleting asks first: it ends the client's grants.
import { useId, useState } from 'react';
import { useParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError, apiBase } from '../../api/client';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { CopyButton } from '../../components/copy-button';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import { ListPage, type Column } from '../../components/list-page';
import { ScopeCheckboxes, errorUnder } from '../../components/scope-checkboxes';
import { SecretOnceDialog } from '../../components/secret-once-dialog';
import { TextField } from '../../components/text-field';
import { useOAuthClientsQuery } from '../../data/oauth-clients/oauth-clients-query';
import { createOAuthClient, invalidateOAuthClients } from '../../data/oauth-clients/oauth-client-create';
import { useOAuthClientDeleteMutation } from '../../data/oauth-clients/oauth-client-delete-mutation';
import type { CreatedOAuthClient, OAuthClient } from '../../data/types';

const when = (iso: string) => new Date(iso).toLocaleString();

export function OAuthClientsPage() {
  const { appId = '' } = useParams();
  const qc = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [shown, setShown] = useState<{ name: string; id: string; secret: string } | null>(null);
  const [deleting, setDeleting] = useState<OAuthClient | null>(null);
  const list = useOAuthClientsQuery(appId);
  const del = useOAuthClientDeleteMutation(appId);
  const invalidate = () => invalidateOAuthClients(qc, appId);
  const issuer = `${apiBase()}/v2/app/${encodeURIComponent(appId)}/oauth`;
  const metadataUrl = `${issuer}/.well-known/oauth-authorization-server`;
  const columns: Array<Column<OAuthClient>> = [
    { header: 'Name', cell: (c) => c.name },
    { header: 'Client ID', cell: (c) => <span style={{ whiteSpace: 'nowrap' }}>{c._id} <CopyButton text={c._id} what={`the client ID of ${c.name}`} /></span>, td: { className: 'mono small' } },
    { header: 'Type', cell: (c) => (c.confidential ? 'confidential' : 'public'), td: { className: 'small' } },
    { header: 'Redirect URIs', cell: (c) => (c.redirectUris.length ? c.redirectUris.map((u) => <div key={u} className="mono" style={{ wordBreak: 'break-all' }}>{u}</div>) : <span className="muted">none</span>), td: { className: 'small', style: { minWidth: '14rem' } } },
    { header: 'Scopes', cell: (c) => c.scopes.map((s) => <code key={s} style={{ marginRight: 6, whiteSpace: 'nowrap' }}>{s}</code>), td: { className: 'small' } },
    { header: 'Created', cell: (c) => when(c.createdAt), td: { className: 'muted small' } },
    { header: 'Actions', cell: (c) => <button type="button" className="small" onClick={() => setDeleting(c)} aria-label={`Delete ${c.name}`}>Delete</button> },
  ];
  return (
    <ListPage
      title="OAuth clients"
      intro={<>Applications that get tokens from this workspace&apos;s OAuth 2.0 server: users&apos; tokens through the authorization code flow (PKCE), a confidential client&apos;s own through client credentials. A client secret is shown <strong>once</strong>, when the client is made.</>}
      create={{ label: 'New OAuth client', onClick: () => setCreating(true) }}
      above={
        <section aria-labelledby="oauth-metadata-h" className="stack" style={{ gap: 4 }}>
          <h2 id="oauth-metadata-h" style={{ fontSize: '1rem', margin: 0 }}>Authorization server metadata</h2>
          <div className="row" style={{ flexWrap: 'nowrap', alignItems: 'flex-start' }}>
            <code aria-label="Metadata URL" style={{ wordBreak: 'break-all' }}>{metadataUrl}</code>
            <CopyButton text={metadataUrl} what="the metadata URL" />
          </div>
          <p className="muted small">RFC 8414: the endpoints (<code style={{ wordBreak: 'break-all' }}>{issuer}/authorize</code>, <code>/token</code>, <code>/revoke</code>), grants and scopes a client library needs.</p>
        </section>
      }
      error={list.error ?? del.error}
      columns={columns} rows={list.data} rowKey={(c) => c._id} empty="No OAuth client yet."
    >
      <Dialog open={creating} title="New OAuth client" onClose={() => setCreating(false)}>
        {creating ? <OAuthClientForm appId={appId} onDone={(made) => { setCreating(false); if (made.clientSecret) setShown({ name: made.name, id: made._id, secret: made.clientSecret }); void invalidate(); }} /> : null}
      </Dialog>
      <SecretOnceDialog onClose={() => setShown(null)} secret={shown && {
        title: 'Your new client secret', value: shown.secret, label: `Secret of ${shown.name}`, what: 'the client secret',
        ifLost: 'Homebase keeps only a hash of it; if it is lost, delete the client and make another.',
        before: <p className="small">Client ID <code>{shown.id}</code></p>,
        usage: <>The client authenticates at <code>/token</code> with HTTP Basic (<code>client_id:client_secret</code>) or <code>client_secret_post</code>.</>,
      }} />
      <ConfirmDialog open={!!deleting} title={`Delete ${deleting?.name ?? ''}`} confirm="Delete client" onClose={() => setDeleting(null)}
        onConfirm={() => { del.reset(); del.mutate(deleting!._id); setDeleting(null); }}>
        <p>Deleting the client ends all its grants at once: every access and refresh token it holds, users&apos; included, is refused from now on, and its secret no longer works. This cannot be undone.</p>
      </ConfirmDialog>
    </ListPage>
  );
}

function OAuthClientForm({ appId, onDone }: { appId: string; onDone: (made: CreatedOAuthClient) => void }) {
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
      onDone(await createOAuthClient(appId, { name, redirectUris, scopes, confidential }));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const errs = error instanceof ApiError ? error.fieldErrors() : {};
  const uriError = errorUnder(errs, 'redirectUris');
  const scopeError = errorUnder(errs, 'scopes');
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
      <ScopeCheckboxes value={scopes} onChange={setScopes} error={scopeError} />
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

// `/app/{app_id}/api-keys`: the workspace's API keys (v2 `/api-keys`). A new key's value is in
// the creation answer only: shown once in a dialog with a copy button, kept in this component's
// state until the dialog closes, never cached, stored or shown again. Revoking asks first.
import { useState } from 'react';
import { useParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../../api/client';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import { ListPage, type Column } from '../../components/list-page';
import { ScopeCheckboxes, errorUnder } from '../../components/scope-checkboxes';
import { SecretOnceDialog } from '../../components/secret-once-dialog';
import { TextField } from '../../components/text-field';
import { useApiKeysQuery } from '../../data/api-keys/api-keys-query';
import { createApiKey, invalidateApiKeys } from '../../data/api-keys/api-key-create';
import { useApiKeyRevokeMutation } from '../../data/api-keys/api-key-revoke-mutation';
import type { ApiKey } from '../../data/types';

const when = (iso: string) => new Date(iso).toLocaleString();

export function ApiKeysPage() {
  const { appId = '' } = useParams();
  const qc = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [shown, setShown] = useState<{ name: string; key: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const list = useApiKeysQuery(appId);
  const revoke = useApiKeyRevokeMutation(appId);
  const invalidate = () => invalidateApiKeys(qc, appId);
  const hasLastUsed = list.data?.some((k) => k.lastUsedAt !== undefined) ?? false;
  const columns: Array<Column<ApiKey>> = [
    { header: 'Name', cell: (k) => k.name },
    { header: 'Key', cell: (k) => <>{k.prefix}_…</>, td: { className: 'mono small' } },
    { header: 'Scopes', cell: (k) => k.scopes.map((s) => <code key={s} style={{ marginRight: 6, whiteSpace: 'nowrap' }}>{s}</code>), td: { className: 'small' } },
    { header: 'Created', cell: (k) => when(k.createdAt), td: { className: 'muted small' } },
    { header: 'Expires', cell: (k) => (k.expiresAt ? when(k.expiresAt) : <span className="muted">never</span>), td: { className: 'small' } },
    ...(hasLastUsed ? [{ header: 'Last used', cell: (k: ApiKey) => (k.lastUsedAt ? when(k.lastUsedAt) : 'never'), td: { className: 'muted small' } }] : []),
    { header: 'Actions', cell: (k) => <button type="button" className="small" onClick={() => setRevoking(k)} aria-label={`Revoke ${k.name}`}>Revoke</button> },
  ];
  return (
    <ListPage
      title="API keys"
      intro={<>For servers and scripts acting without a user: sent in the <code>X-API-Key</code> header on v1 and v2, each limited to its scopes. A key&apos;s value is shown <strong>once</strong>, when it is made.</>}
      create={{ label: 'New API key', onClick: () => setCreating(true) }}
      error={list.error ?? revoke.error}
      columns={columns} rows={list.data} rowKey={(k) => k._id} empty="No API key yet."
    >
      <Dialog open={creating} title="New API key" onClose={() => setCreating(false)}>
        {creating ? <ApiKeyForm appId={appId} onDone={(made) => { setCreating(false); setShown(made); void invalidate(); }} /> : null}
      </Dialog>
      <SecretOnceDialog onClose={() => setShown(null)} secret={shown && {
        title: 'Your new API key', value: shown.key, label: `Value of ${shown.name}`, what: 'the API key',
        ifLost: 'Homebase keeps only a hash of it; if it is lost, revoke it and make another.',
        usage: <>Send it as <code>X-API-Key: {'<key>'}</code> (never together with an <code>Authorization</code> header).</>,
      }} />
      <ConfirmDialog open={!!revoking} title={`Revoke ${revoking?.name ?? ''}`} confirm="Revoke key" onClose={() => setRevoking(null)}
        onConfirm={() => { revoke.reset(); revoke.mutate(revoking!._id); setRevoking(null); }}>
        <p>Requests made with <code>{revoking?.prefix}_…</code> will be refused (401) at once. This cannot be undone.</p>
      </ConfirmDialog>
    </ListPage>
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
      const made = await createApiKey(appId, { name, scopes, expiresAt });
      onDone({ name: made.name, key: made.key });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const errs = error instanceof ApiError ? error.fieldErrors() : {};
  const scopeError = errorUnder(errs, 'scopes');
  return (
    <form className="form" onSubmit={(e) => { e.preventDefault(); void submit(); }} autoComplete="off">
      <TextField label="Name" value={name} onChange={setName} error={errs.name} required hint="What uses it, e.g. nightly-export." />
      <ScopeCheckboxes value={scopes} onChange={setScopes} error={scopeError} />
      <TextField label="Expires" type="datetime-local" value={expires} onChange={setExpires} error={errs.expiresAt}
        hint="Optional; your local time. Empty: the key does not expire. It must be after the workspace's clock." />
      <ErrorBox error={error} />
      <div className="form-actions"><button type="submit" className="primary" disabled={busy || !name.trim() || scopes.length === 0}>Create key</button></div>
    </form>
  );
}

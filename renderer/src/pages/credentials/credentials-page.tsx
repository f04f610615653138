// `/app/{app_id}/credentials`: secrets for scenarios ({{secrets.NAME}}). The value is
// write-only: typed once into a password field, sent, and dropped from memory; the console
// never shows, stores or logs it (no query cache, no mutation cache: a plain request).
import { useState } from 'react';
import { useParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../../api/client';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import { ListPage, type Column } from '../../components/list-page';
import { TextField } from '../../components/text-field';
import { useCredentialsQuery } from '../../data/credentials/credentials-query';
import { invalidateCredentials, saveCredential } from '../../data/credentials/credential-save';
import { useCredentialDeleteMutation } from '../../data/credentials/credential-delete-mutation';
import type { Secret } from '../../data/types';

export function CredentialsPage() {
  const { appId = '' } = useParams();
  const qc = useQueryClient();
  const [offset, setOffset] = useState(0);
  const [editing, setEditing] = useState<Secret | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Secret | null>(null);
  const limit = 50;
  const list = useCredentialsQuery(appId, { limit, offset });
  const del = useCredentialDeleteMutation(appId, { onSettled: () => setDeleting(null) });
  const invalidate = () => invalidateCredentials(qc, appId);
  const columns: Array<Column<Secret>> = [
    { header: 'Name', cell: (s) => <code>{s.name}</code> },
    { header: 'Type', cell: (s) => s.type },
    { header: 'Description', cell: (s) => s.description, td: { className: 'muted' } },
    { header: 'Value', cell: () => '••••••••', td: { className: 'muted', 'aria-label': 'hidden value' } },
    { header: 'Changed', cell: (s) => new Date(s.updatedAt).toLocaleString(), td: { className: 'muted small' } },
    {
      header: 'Actions',
      cell: (s) => (
        <div className="row">
          <button type="button" className="small" onClick={() => setEditing(s)} aria-label={`Replace ${s.name}`}>Replace</button>
          <button type="button" className="small" onClick={() => setDeleting(s)} aria-label={`Delete ${s.name}`}>Delete</button>
        </div>
      ),
    },
  ];
  return (
    <ListPage
      title="Secrets"
      intro={<>Values scenarios use as <code>{'{{secrets.NAME}}'}</code>. A value is <strong>write-only</strong>: type it once; it is stored encrypted and never shown again, here or in the API, exports and execution logs.</>}
      create={{ label: 'New secret', onClick: () => setEditing('new') }}
      error={list.error ?? del.error}
      columns={columns} rows={list.data?.data} rowKey={(s) => s._id} empty="No secret yet."
      page={list.data ? { total: list.data.meta.total, offset, limit, onOffset: setOffset, label: 'Secret pages' } : undefined}
    >
      <Dialog open={!!editing} title={editing === 'new' ? 'New secret' : `Replace ${editing?.name ?? ''}`} onClose={() => setEditing(null)}>
        {editing ? <SecretForm appId={appId} secret={editing === 'new' ? undefined : editing} onDone={() => { setEditing(null); void invalidate(); }} /> : null}
      </Dialog>
      <ConfirmDialog open={!!deleting} title={`Delete ${deleting?.name ?? ''}`} confirm="Delete secret" cancel={false} onClose={() => setDeleting(null)}
        onConfirm={() => { del.reset(); del.mutate(deleting!._id); }}>
        <p>Scenarios that use <code>{`{{secrets.${deleting?.name}}}`}</code> will fail until a secret of that name exists again.</p>
      </ConfirmDialog>
    </ListPage>
  );
}

function SecretForm({ appId, secret, onDone }: { appId: string; secret?: Secret; onDone: () => void }) {
  const [name, setName] = useState(secret?.name ?? '');
  const [type, setType] = useState(secret?.type ?? '');
  const [description, setDescription] = useState(secret?.description ?? '');
  const [value, setValue] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setBusy(true);
    setError(null);
    const body: Record<string, string> = { name, ...(type ? { type } : {}), description };
    if (value || !secret) body.value = value;
    try {
      await saveCredential(appId, secret?._id, body);
      setValue('');
      onDone();
    } catch (e) {
      setError(e);
    } finally {
      body.value = '';
      setBusy(false);
    }
  };
  const errs = error instanceof ApiError ? error.fieldErrors() : {};
  return (
    <form className="form" onSubmit={(e) => { e.preventDefault(); void submit(); }} autoComplete="off">
      <TextField label="Name" value={name} onChange={setName} error={errs.name} required hint="Letters, digits and _; used as {{secrets.NAME}}." />
      <TextField label="Type" value={type} onChange={setType} error={errs.type} hint="Free text, for you: api-key, password, token…" />
      <TextField label="Description" value={description} onChange={setDescription} error={errs.description} />
      <TextField label={secret ? 'New value' : 'Value'} type="password" value={value} onChange={setValue} error={errs.value} required={!secret}
        hint={secret ? 'Leave empty to keep the current value. It is never shown.' : 'Write-only: it is never shown again.'}
        inputProps={{ autoComplete: 'new-password', spellCheck: false }} />
      <ErrorBox error={error} />
      <div className="form-actions"><button type="submit" className="primary" disabled={busy || !name || (!secret && !value)}>{secret ? 'Save' : 'Create secret'}</button></div>
    </form>
  );
}

// `/app/{app_id}/users`: the workspace's users — search, page, create, change role, delete,
// impersonate (copy the token) and send a recovery email (it lands in the outbox).
import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { ApiError } from '../../api/client';
import { CopyButton } from '../../components/copy-button';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import { ListPage, type Column } from '../../components/list-page';
import { TextField } from '../../components/text-field';
import { useUsersQuery } from '../../data/users/users-query';
import { useUserCreateMutation } from '../../data/users/user-create-mutation';
import { useUserUpdateMutation } from '../../data/users/user-update-mutation';
import { useUserDeleteMutation } from '../../data/users/user-delete-mutation';
import { useUserImpersonateMutation, type Impersonation } from '../../data/users/user-impersonate-mutation';
import { useUserRecoveryMutation } from '../../data/users/user-recovery-mutation';
import type { User } from '../../data/types';

export function UsersPage() {
  const { appId = '' } = useParams();
  // `?search=` (a user label in the records grid links here) starts the search.
  const [params] = useSearchParams();
  const [search, setSearch] = useState(() => params.get('search') ?? '');
  const [offset, setOffset] = useState(0);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<User | null>(null);
  const [editing, setEditing] = useState<User | null>(null);
  const [impersonated, setImpersonated] = useState<Impersonation | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const limit = 25;
  const list = useUsersQuery(appId, { limit, offset, search });
  const role = useUserUpdateMutation(appId);
  const impersonate = useUserImpersonateMutation(appId, { onSuccess: setImpersonated });
  const recover = useUserRecoveryMutation(appId, { onSuccess: (u) => setNotice(`A recovery email for ${u.email} is in the outbox.`) });
  const columns: Array<Column<User>> = [
    { header: 'Email', cell: (u) => <>{u.email}<div className="muted small mono">{u._id}</div></> },
    { header: 'Name', cell: (u) => u.name },
    {
      header: 'Role',
      cell: (u) => (
        <select aria-label={`Role of ${u.email}`} value={u.role} onChange={(e) => role.mutate({ id: u._id, body: { role: e.target.value } })}>
          {[...new Set(['user', 'admin', u.role])].map((r) => <option key={r} value={r}>{r}</option>)}
        </select>
      ),
    },
    { header: 'Created', cell: (u) => new Date(u.createdAt).toLocaleString(), td: { className: 'muted small' } },
    {
      header: 'Actions',
      cell: (u) => (
        <div className="row">
          <button type="button" className="small" onClick={() => setEditing(u)} aria-label={`Edit ${u.email}`}>Edit</button>
          <button type="button" className="small" onClick={() => impersonate.mutate(u)} aria-label={`Impersonate ${u.email}`}>Impersonate</button>
          <button type="button" className="small" onClick={() => recover.mutate(u)} aria-label={`Send a recovery email to ${u.email}`}>Send recovery email</button>
          <button type="button" className="small" onClick={() => setDeleting(u)} aria-label={`Delete ${u.email}`}>Delete</button>
        </div>
      ),
    },
  ];
  return (
    <ListPage
      title="Users"
      intro={<>People who sign in to this workspace&apos;s API. Roles: <code>admin</code> can do everything; <code>user</code> follows the collections&apos; access rules.</>}
      create={{ label: 'New user', onClick: () => setCreating(true) }}
      search={<label className="check">Search by email <input type="search" value={search} onChange={(e) => { setSearch(e.target.value); setOffset(0); }} placeholder="part of an email" /></label>}
      error={list.error ?? role.error ?? impersonate.error ?? recover.error}
      notice={notice ? <div className="notice" role="status">{notice} <Link to={`/app/${appId}/outbox`}>Open the outbox</Link></div> : null}
      columns={columns} rows={list.data?.data} rowKey={(u) => u._id} empty="No user matches."
      page={list.data ? { total: list.data.meta.total, offset, limit, onOffset: setOffset, label: 'User pages' } : undefined}
    >

      <Dialog open={creating} title="New user" onClose={() => setCreating(false)}>
        {creating ? <CreateUser appId={appId} onDone={() => setCreating(false)} /> : null}
      </Dialog>
      <Dialog open={!!editing} title={`Edit ${editing?.email ?? ''}`} onClose={() => setEditing(null)}>
        {editing ? <EditUser key={editing._id} appId={appId} user={editing} onDone={() => setEditing(null)} /> : null}
      </Dialog>
      <Dialog open={!!deleting} title={`Delete ${deleting?.email ?? ''}`} onClose={() => setDeleting(null)}>
        {deleting ? <DeleteUser appId={appId} user={deleting} onDone={() => setDeleting(null)} /> : null}
      </Dialog>
      <Dialog open={!!impersonated} title={`Tokens of ${impersonated?.user.email ?? ''}`} onClose={() => setImpersonated(null)}>
        {impersonated ? (
          <div className="stack">
            <p>A new session of <code>{impersonated.user.email}</code>, made by you as the admin. Send the access token as <code>Authorization: Bearer …</code> to call the API as this user: it sees and may do only what this user may. The token records that the admin made it (<code>act.sub</code>); the console itself stays signed in as the admin. It lasts 15 minutes; the refresh token renews it.</p>
            <div className="row"><strong>Access token</strong><CopyButton text={impersonated.token} what="the access token" /></div>
            <pre>{impersonated.token}</pre>
            <div className="row"><strong>Refresh token</strong><CopyButton text={impersonated.refreshToken} what="the refresh token" /></div>
          </div>
        ) : null}
      </Dialog>
    </ListPage>
  );
}

function CreateUser({ appId, onDone }: { appId: string; onDone: () => void }) {
  const [u, setU] = useState({ email: '', password: '', name: '', role: 'user' });
  const create = useUserCreateMutation(appId, { onSuccess: onDone });
  const errs = create.error instanceof ApiError ? create.error.fieldErrors() : {};
  const set = (k: keyof typeof u) => (v: string) => setU((x) => ({ ...x, [k]: v }));
  return (
    <form className="form" onSubmit={(e) => { e.preventDefault(); create.mutate({ email: u.email, password: u.password, ...(u.name ? { name: u.name } : {}), role: u.role }); }} noValidate>
      <TextField label="Email" type="email" value={u.email} onChange={set('email')} error={errs.email} required />
      <TextField label="Password" type="password" value={u.password} onChange={set('password')} error={errs.password} required hint="At least 8 characters." />
      <TextField label="Name" value={u.name} onChange={set('name')} error={errs.name} />
      <label className="field">Role
        <select value={u.role} onChange={(e) => set('role')(e.target.value)}><option value="user">user</option><option value="admin">admin</option></select>
      </label>
      <ErrorBox error={create.error} />
      <div className="form-actions"><button type="submit" className="primary" disabled={create.isPending}>Create user</button></div>
    </form>
  );
}

/** Name, email, role and a new password (left empty: unchanged). Only what changed is sent;
 *  a new password ends the user's sessions (the server's rule). */
function EditUser({ appId, user, onDone }: { appId: string; user: User; onDone: () => void }) {
  const [u, setU] = useState({ email: user.email, name: user.name ?? '', role: user.role, password: '' });
  const body = () => ({
    ...(u.email !== user.email ? { email: u.email } : {}),
    ...(u.name !== (user.name ?? '') ? { name: u.name } : {}),
    ...(u.role !== user.role ? { role: u.role } : {}),
    ...(u.password ? { password: u.password } : {}),
  });
  const save = useUserUpdateMutation(appId, { onSuccess: onDone });
  const errs = save.error instanceof ApiError ? save.error.fieldErrors() : {};
  const set = (k: keyof typeof u) => (v: string) => setU((x) => ({ ...x, [k]: v }));
  return (
    <form className="form" onSubmit={(e) => { e.preventDefault(); if (Object.keys(body()).length) save.mutate({ id: user._id, body: body() }); else onDone(); }} noValidate>
      <p className="muted small mono">{user._id}</p>
      <TextField label="Email" type="email" value={u.email} onChange={set('email')} error={errs.email} required />
      <TextField label="Name" value={u.name} onChange={set('name')} error={errs.name} />
      <label className="field">Role
        <select value={u.role} onChange={(e) => set('role')(e.target.value)}>{[...new Set(['user', 'admin', user.role])].map((r) => <option key={r} value={r}>{r}</option>)}</select>
      </label>
      <TextField label="New password" type="password" value={u.password} onChange={set('password')} error={errs.password} hint="Empty: unchanged. At least 8 characters; a new password ends this user's other sessions." />
      <ErrorBox error={save.error} />
      <div className="form-actions"><button type="submit" className="primary" disabled={save.isPending}>Save user</button></div>
    </form>
  );
}

function DeleteUser({ appId, user, onDone }: { appId: string; user: User; onDone: () => void }) {
  const del = useUserDeleteMutation(appId, { onSuccess: onDone });
  return (
    <div className="stack">
      <p>Delete <code>{user.email}</code>? Their sessions end at once. Records they own stay.</p>
      <ErrorBox error={del.error} />
      <div className="form-actions"><button type="button" className="danger" disabled={del.isPending} onClick={() => del.mutate(user._id)}>Delete user</button></div>
    </div>
  );
}

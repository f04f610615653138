// New workspace: id, name and its first admin (email, password; a generated password is shown once).
import { useState } from 'react';
import { ApiError } from '../../api/client';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import { CopyButton } from '../../components/copy-button';
import { TextField } from '../../components/text-field';
import { useWorkspaceCreateMutation } from '../../data/workspaces/workspace-create-mutation';

export function CreateWorkspaceDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [form, setForm] = useState({ _id: '', name: '', email: '', password: '' });
  const create = useWorkspaceCreateMutation();
  const errs = create.error instanceof ApiError ? create.error.fieldErrors() : {};
  const done = () => { setForm({ _id: '', name: '', email: '', password: '' }); create.reset(); onClose(); };
  const set = (k: keyof typeof form) => (v: string) => setForm((f) => ({ ...f, [k]: v }));
  return (
    <Dialog open={open} title="New workspace" onClose={done}>
      {create.data ? (
        <div className="stack">
          <p>Workspace <code>{create.data._id}</code> is ready. Its admin is <code>{create.data.admin.email}</code>.</p>
          {create.data.admin.password ? (
            <div className="notice">
              <p>Generated admin password (shown once):</p>
              <div className="row"><code>{create.data.admin.password}</code><CopyButton text={create.data.admin.password} what="the admin password" /></div>
            </div>
          ) : null}
          <div className="form-actions"><a className="button primary" href={`/app/${create.data._id}`}>Open it</a><button type="button" onClick={done}>Close</button></div>
        </div>
      ) : (
        <form className="form" onSubmit={(e) => {
          e.preventDefault();
          create.mutate({
            _id: form._id, ...(form.name ? { name: form.name } : {}),
            admin: { ...(form.email ? { email: form.email } : {}), ...(form.password ? { password: form.password } : {}) },
          });
        }}>
          <TextField label="Id" hint="Letters, digits, _ and -, starting with a letter; it is in the API's URLs." value={form._id} onChange={set('_id')} error={errs._id} required />
          <TextField label="Name" value={form.name} onChange={set('name')} error={errs.name} />
          <TextField label="Admin email" type="email" hint="Empty: the server's default admin email." value={form.email} onChange={set('email')} error={errs['admin.email']} />
          <TextField label="Admin password" type="password" hint="At least 8 characters; empty: one is generated and shown once." value={form.password} onChange={set('password')} error={errs['admin.password']} />
          <ErrorBox error={create.error} />
          <div className="form-actions"><button type="submit" className="primary" disabled={!form._id || create.isPending}>Create workspace</button></div>
        </form>
      )}
    </Dialog>
  );
}

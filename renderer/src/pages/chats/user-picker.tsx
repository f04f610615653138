// Picks a workspace user: a search by email over the users API, one page of 10 at a time.
import { useId, useState } from 'react';
import { ErrorBox } from '../../components/error-box';
import { Pager } from '../../components/pager';
import { useUserPickerQuery } from '../../data/users/user-picker-query';
import type { User } from '../../data/types';

export function UserPicker({ appId, actionLabel, isPicked, onPick, busy }: {
  appId: string; actionLabel: string; isPicked?: (id: string) => boolean; onPick: (u: User) => void; busy?: boolean;
}) {
  const [search, setSearch] = useState('');
  const [offset, setOffset] = useState(0);
  const id = useId();
  const limit = 10;
  const list = useUserPickerQuery(appId, { limit, offset, search });
  return (
    <div className="stack">
      <label className="field" htmlFor={id}>Find a user by email
        <input id={id} type="search" value={search} placeholder="part of an email" autoComplete="off"
          onChange={(e) => { setSearch(e.target.value); setOffset(0); }} />
      </label>
      <ErrorBox error={list.error} />
      <ul className="pick-list" aria-label="Users">
        {list.data?.data.map((u) => {
          const picked = isPicked?.(u._id) ?? false;
          return (
            <li key={u._id}>
              <span>{u.email}{u.name ? <span className="muted"> · {u.name}</span> : null}{u.role === 'admin' ? <span className="badge">admin</span> : null}</span>
              <button type="button" className="small" disabled={picked || busy} onClick={() => onPick(u)} aria-label={`${actionLabel} ${u.email}`}>
                {picked ? 'Member' : actionLabel}
              </button>
            </li>
          );
        })}
        {list.data?.data.length === 0 ? <li className="muted">No user matches.</li> : null}
      </ul>
      {list.data && list.data.meta.total > limit ? <Pager total={list.data.meta.total} offset={offset} limit={limit} onOffset={setOffset} label="User pages" /> : null}
    </div>
  );
}

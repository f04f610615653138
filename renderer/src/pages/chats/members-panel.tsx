// A channel's members, paged through the API: remove (or leave, for the member acted as), act
// as one of them, and add users through the user picker. Changes go as the acting identity, so
// the server's rules (owner or admin adds and removes; a member may leave) apply as they are.
import { useState } from 'react';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import { Pager } from '../../components/pager';
import { useMembersQuery } from '../../data/chats/members-query';
import { useMemberAddMutation } from '../../data/chats/member-add-mutation';
import { useMemberRemoveMutation } from '../../data/chats/member-remove-mutation';
import type { Channel, Member } from '../../data/types';
import { UserPicker } from './user-picker';
import { useUserLabels } from './use-user-labels';

export function MembersPanel({ appId, channel, actAs, onActAs, onChanged }: {
  appId: string; channel: Channel; actAs: string | undefined; onActAs: (id: string) => void; onChanged: () => void;
}) {
  const [offset, setOffset] = useState(0);
  const [adding, setAdding] = useState(false);
  const limit = 20;
  const list = useMembersQuery(appId, actAs, channel, { limit, offset });
  const labels = useUserLabels(appId, list.data?.data.map((m) => m.userId) ?? []);
  const changed = () => onChanged();
  const add = useMemberAddMutation(appId, actAs, channel._id, { onSuccess: changed });
  const remove = useMemberRemoveMutation(appId, actAs, channel._id, { onSuccess: changed });
  const members = new Set(channel.members);
  const who = (m: Member) => labels.get(m.userId)?.email ?? (m.name || m.userId);
  return (
    <section className="members stack" aria-labelledby="members-h">
      <div className="row">
        <h3 id="members-h" style={{ flex: 1, margin: 0 }}>Members <span className="muted">({channel.members.length})</span></h3>
        {channel.type === 'group' ? <button type="button" className="small" onClick={() => { add.reset(); setAdding(true); }}>Add member</button> : null}
      </div>
      <ErrorBox error={list.error ?? remove.error} />
      <ul className="member-list">
        {list.data?.data.map((m) => (
          <li key={m.userId}>
            <div>
              <div>{who(m)}{m.role === 'owner' ? <span className="badge">owner</span> : null}{actAs === m.userId ? <span className="badge ok">acting</span> : null}</div>
              {m.name && labels.get(m.userId)?.email ? <div className="muted small">{m.name}</div> : null}
            </div>
            <div className="row">
              {actAs === m.userId ? null : <button type="button" className="small" onClick={() => onActAs(m.userId)} aria-label={`Act as ${who(m)}`}>Act as</button>}
              <button type="button" className="small" disabled={remove.isPending} onClick={() => remove.mutate(m.userId)} aria-label={`${actAs === m.userId ? 'Leave the channel as' : 'Remove'} ${who(m)}`}>
                {actAs === m.userId ? 'Leave' : 'Remove'}
              </button>
            </div>
          </li>
        ))}
        {list.data?.data.length === 0 ? <li className="muted">No member (only admins can reach this channel).</li> : null}
      </ul>
      {list.data && list.data.meta.total > limit ? <Pager total={list.data.meta.total} offset={offset} limit={limit} onOffset={setOffset} label="Member pages" /> : null}
      <Dialog open={adding} title="Add a member" onClose={() => setAdding(false)}>
        {adding ? (
          <div className="stack">
            <UserPicker appId={appId} actionLabel="Add" busy={add.isPending} isPicked={(id) => members.has(id)} onPick={(u) => add.mutate(u._id)} />
            <ErrorBox error={add.error} />
            {add.isSuccess ? <p role="status" className="muted">Added. Add another, or close.</p> : null}
          </div>
        ) : null}
      </Dialog>
    </section>
  );
}

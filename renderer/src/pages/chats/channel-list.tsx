// The workspace's channels (every channel: the console lists them as the admin), searched by
// name and paged through the API's list parameters, with the "New channel" dialog.
import { useState } from 'react';
import { NavLink, useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import { Pager } from '../../components/pager';
import { useChannelsQuery } from '../../data/chats/channels-query';
import { invalidateChannels } from '../../data/chats/channel-query';
import { ChannelForm, channelTitle } from './channel-forms';

export function ChannelList({ appId }: { appId: string }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [search, setSearch] = useState('');
  const [offset, setOffset] = useState(0);
  const [creating, setCreating] = useState(false);
  const limit = 25;
  const list = useChannelsQuery(appId, { limit, offset, search });
  return (
    <section className="channel-list stack" aria-labelledby="channels-h">
      <div className="row">
        <h2 id="channels-h" style={{ flex: 1, margin: 0 }}>Channels</h2>
        <button type="button" className="primary small" onClick={() => setCreating(true)}>New channel</button>
      </div>
      <label className="field">Search channels
        <input type="search" value={search} placeholder="part of a name" onChange={(e) => { setSearch(e.target.value); setOffset(0); }} />
      </label>
      <ErrorBox error={list.error} />
      <ul className="nav-list">
        {list.data?.data.map((c) => (
          <li key={c._id}>
            <NavLink to={`/app/${appId}/chats/${c._id}`}>
              <span className="nav-list-title">{channelTitle(c)}</span>
              <span className="muted small">{c.type === 'direct' ? 'direct · ' : ''}{c.members.length} member{c.members.length === 1 ? '' : 's'}</span>
            </NavLink>
          </li>
        ))}
        {list.data?.data.length === 0 ? <li className="muted">{search ? 'No channel matches.' : 'No channel yet.'}</li> : null}
      </ul>
      {list.data && list.data.meta.total > limit ? <Pager total={list.data.meta.total} offset={offset} limit={limit} onOffset={setOffset} label="Channel pages" /> : null}
      <Dialog open={creating} title="New channel" onClose={() => setCreating(false)}>
        {creating ? (
          <ChannelForm appId={appId} onDone={(c) => {
            setCreating(false);
            void invalidateChannels(qc, appId);
            navigate(`/app/${appId}/chats/${c._id}`);
          }} />
        ) : null}
      </Dialog>
    </section>
  );
}

// One channel: its header (rename, delete), who the console acts as, the live messages and the
// members. "Act as" lives in the query string (`?as=<userId>`), so a reload or a link keeps it.
import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import { useAdminMeQuery } from '../../data/chats/admin-me-query';
import { forgetChannel, invalidateChannels, useChannelQuery } from '../../data/chats/channel-query';
import { ChannelForm, DeleteChannel, channelTitle } from './channel-forms';
import { MembersPanel } from './members-panel';
import { MessagesPanel } from './messages-panel';
import { useUserLabels, userLabel } from './use-user-labels';

export function ChannelView({ appId, channelId }: { appId: string; channelId: string }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const actAs = params.get('as') || undefined;
  const [dialog, setDialog] = useState<'rename' | 'delete' | null>(null);
  const setActAs = (id: string | undefined) => setParams(id ? { as: id } : {});

  const me = useAdminMeQuery(appId);
  const channel = useChannelQuery(appId, channelId, actAs);
  const labels = useUserLabels(appId, [actAs ?? '', channel.data?._owner ?? ''].filter(Boolean));
  const myId = actAs ?? me.data?._id;
  const refresh = () => void invalidateChannels(qc, appId);
  const c = channel.data;

  return (
    <section className="channel stack" aria-labelledby="channel-h">
      <div className="page-head" style={{ marginBottom: 0 }}>
        <div>
          <h2 id="channel-h">{c ? channelTitle(c) : channel.isError ? 'Channel' : 'Loading…'}</h2>
          {c ? (
            <p className="muted small">
              {c.type === 'direct' ? 'Direct channel' : 'Group channel'} · owner {userLabel(labels, c._owner)} · <span className="mono">{c._id}</span>
              {c.description ? <><br />{c.description}</> : null}
            </p>
          ) : null}
        </div>
        {c ? (
          <div className="row">
            <button type="button" className="small" onClick={() => setDialog('rename')}>Rename</button>
            <button type="button" className="small" onClick={() => setDialog('delete')}>Delete channel</button>
          </div>
        ) : null}
      </div>

      <div className="acting row" role="group" aria-label="Identity">
        <span>Acting as <strong>{actAs ? userLabel(labels, actAs) : `the workspace admin${me.data ? ` (${me.data.email})` : ''}`}</strong></span>
        {actAs
          ? <button type="button" className="small" onClick={() => setActAs(undefined)}>Act as the admin again</button>
          : <span className="muted small">Choose “Act as” next to a member to see and post as that member.</span>}
      </div>

      <ErrorBox error={channel.error} />
      {c && myId ? (
        <div className="channel-body">
          <MessagesPanel appId={appId} channelId={channelId} actAs={actAs} myId={myId} isAdmin={!actAs} onChannelEvent={refresh} />
          <MembersPanel appId={appId} channel={c} actAs={actAs} onActAs={setActAs} onChanged={refresh} />
        </div>
      ) : null}

      <Dialog open={dialog === 'rename'} title={`Rename ${c ? channelTitle(c) : ''}`} onClose={() => setDialog(null)}>
        {dialog === 'rename' && c ? <ChannelForm appId={appId} channel={c} actAs={actAs} onDone={() => { setDialog(null); refresh(); }} /> : null}
      </Dialog>
      <Dialog open={dialog === 'delete'} title={`Delete ${c ? channelTitle(c) : ''}`} onClose={() => setDialog(null)}>
        {dialog === 'delete' && c ? (
          <DeleteChannel appId={appId} channel={c} actAs={actAs} onDone={() => {
            setDialog(null);
            forgetChannel(qc, appId, channelId, actAs);
            navigate(`/app/${appId}/chats`);
          }} />
        ) : null}
      </Dialog>
    </section>
  );
}

// One channel: its header (rename, delete), who the console acts as, the live messages and the
// members. "Act as" lives in the query string (`?as=<userId>`), so a reload or a link keeps it.
import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { enc, workspaceApi } from '../../api/client';
import { workspaceApiAs } from '../../api/act-as';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import { ChannelForm, DeleteChannel, channelTitle, type Channel } from './channel-forms';
import { channelKeys } from './channel-list';
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

  const me = useQuery({
    queryKey: [...channelKeys.all(appId), 'admin-me'],
    queryFn: () => workspaceApi<{ _id: string; email: string }>(appId, '/auth/me'),
    staleTime: Infinity,
  });
  const channel = useQuery({
    queryKey: channelKeys.one(appId, channelId, actAs),
    queryFn: () => workspaceApiAs<Channel>(appId, actAs, `/chats/channels/${enc(channelId)}`),
  });
  const labels = useUserLabels(appId, [actAs ?? '', channel.data?._owner ?? ''].filter(Boolean));
  const myId = actAs ?? me.data?._id;
  const refresh = () => void qc.invalidateQueries({ queryKey: channelKeys.all(appId) });
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
            qc.removeQueries({ queryKey: channelKeys.one(appId, channelId, actAs) });
            refresh();
            navigate(`/app/${appId}/chats`);
          }} />
        ) : null}
      </Dialog>
    </section>
  );
}

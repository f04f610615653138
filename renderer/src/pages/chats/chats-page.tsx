// `/app/{app_id}/chats[/{channelId}]`: the workspace's channels on the left, the chosen channel
// (messages live over the realtime socket, members) on the right.
import { useParams } from 'react-router';
import { ChannelList } from './channel-list';
import { ChannelView } from './channel-view';

export function ChatsPage() {
  const { appId = '', channelId } = useParams();
  return (
    <div className="stack">
      <div>
        <h1>Chats</h1>
        <p className="muted">Channels, their members and their messages. The console acts as the workspace admin, or as a member you choose (the API's impersonation), and the server applies that user's rules.</p>
      </div>
      <div className="chats">
        <ChannelList appId={appId} />
        {channelId
          ? <ChannelView key={channelId} appId={appId} channelId={channelId} />
          : <p className="muted chats-empty">Choose a channel, or create one.</p>}
      </div>
    </div>
  );
}

// The channel dialogs' contents: create or rename (name and description) and delete (with the
// confirmation naming what goes with the channel).
import { useState } from 'react';
import { ApiError } from '../../api/client';
import { ErrorBox } from '../../components/error-box';
import { TextField } from '../../components/text-field';
import { useChannelSaveMutation } from '../../data/chats/channel-save-mutation';
import { useChannelDeleteMutation } from '../../data/chats/channel-delete-mutation';
import type { Channel } from '../../data/types';

export type { Channel };

export const channelTitle = (c: Pick<Channel, 'name' | 'type' | '_id'>) => c.name || (c.type === 'direct' ? 'Direct channel' : c._id);

/** Creates a channel as the admin, or renames `channel` as the acting identity. */
export function ChannelForm({ appId, channel, actAs, onDone }: { appId: string; channel?: Channel; actAs?: string; onDone: (c: Channel) => void }) {
  const [name, setName] = useState(channel?.name ?? '');
  const [description, setDescription] = useState(channel?.description ?? '');
  const save = useChannelSaveMutation(appId, actAs, { onSuccess: onDone });
  const errs = save.error instanceof ApiError ? save.error.fieldErrors() : {};
  return (
    <form className="form" onSubmit={(e) => { e.preventDefault(); save.mutate({ id: channel?._id, body: { name, ...(description || channel?.description ? { description } : {}) } }); }} noValidate>
      <TextField label="Name" value={name} onChange={setName} error={errs.name} required={channel?.type !== 'direct'} />
      <TextField label="Description" value={description} onChange={setDescription} error={errs.description} />
      {channel ? null : <p className="muted small">A group channel. You (the workspace admin) become its owner and first member; add others next.</p>}
      <ErrorBox error={save.error} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={save.isPending}>{channel ? 'Save' : 'Create channel'}</button>
      </div>
    </form>
  );
}

export function DeleteChannel({ appId, channel, actAs, onDone }: { appId: string; channel: Channel; actAs?: string; onDone: () => void }) {
  const del = useChannelDeleteMutation(appId, actAs, { onSuccess: onDone });
  return (
    <div className="stack">
      <p>Delete <strong>{channelTitle(channel)}</strong>? All its messages are deleted with it, and its members stop receiving it at once. This cannot be undone.</p>
      <ErrorBox error={del.error} />
      <div className="form-actions"><button type="button" className="danger" disabled={del.isPending} onClick={() => del.mutate(channel._id)}>Delete channel</button></div>
    </div>
  );
}

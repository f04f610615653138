// What a realtime socket may say and what it is answered: subscribe /
// unsubscribe to topics with the REST access rules, and chat messages posted through the same
// chats service as REST. Also the re-checks of a socket's session and subscriptions.
import type { AppContext } from '../context.js';
import { ApiError, publicError, toApiError } from '../../core/errors.js';
import { MAX_JSON_DEPTH, tooDeep } from '../../core/http.js';
import { checkAccess } from '../database/index.js';
import { recheckAuth } from '../auth/index.js';
import { canAccessChannel, loadChannel, postMessage } from '../chats/index.js';
import type { Client, Hub } from './hub.js';

/** Subscriptions one socket may hold at once. */
export const MAX_TOPICS = 100;

const TOPIC = /^(chat|database):([A-Za-z0-9_-]{1,64})$/;

/** Throws the ApiError a REST call would get if this client may not follow `topic`. */
export async function checkTopic(client: Client, topic: unknown): Promise<string> {
  const m = typeof topic === 'string' ? TOPIC.exec(topic) : null;
  if (!m) throw ApiError.badRequest("'topic' must be \"chat:<channelId>\" or \"database:<collection>\"");
  const [, kind, id] = m;
  if (kind === 'chat') {
    if (!client.auth) throw ApiError.unauthorized('Sign in to follow a chat channel');
    const channel = await loadChannel(client.ws, id);
    if (!canAccessChannel(channel, client.auth)) throw ApiError.forbidden('Only members of this channel may follow it');
  } else {
    const def = client.ws.settings.data.collections.find((c) => c._id === id);
    if (!def) throw ApiError.notFound('Collection', id);
    checkAccess(def, 'read', client.auth); // 401 for an anonymous socket unless reads are public
  }
  return topic as string;
}

/** Is the socket's session still alive? Asks the auth module's session check, the one every
 *  request passes (impersonation included), and refreshes the user's name and role on the way.
 *  (The access token's own expiry is checked at connect only: a socket lives as long as its
 *  session, and logout, password reset, user deletion or the impersonating admin's demotion
 *  end it.) */
export async function checkSession(client: Client): Promise<boolean> {
  if (!client.auth) return true;
  try {
    client.auth = await recheckAuth(client.ws, client.auth);
    return true;
  } catch {
    return false;
  }
}

/** Re-checks a socket after its workspace's content was replaced or its user changed: the
 *  session first, then every subscription. */
export async function revalidate(hub: Hub, client: Client): Promise<void> {
  if (client.closed) return;
  // Events met meanwhile wait for the outcome instead of going out on the old rights.
  hub.hold(client);
  try {
    if (!(await checkSession(client))) return hub.close(client, 1008, 'Session ended; sign in again');
    for (const topic of [...client.topics]) {
      try {
        await checkTopic(client, topic);
      } catch (err) {
        hub.unsubscribe(client, topic, toApiError(err).message);
      }
    }
  } finally {
    hub.release(client);
  }
}

function errorFrame(err: unknown, extra: { topic?: string; id?: unknown }) {
  const e = publicError(err, { topic: extra.topic }, 'realtime frame failed');
  return {
    type: 'error' as const, code: e.code, message: e.message,
    ...(e.details ? { details: e.details } : {}),
    ...(extra.topic !== undefined ? { topic: extra.topic } : {}),
    ...(extra.id !== undefined ? { id: extra.id } : {}),
  };
}

/** Handles one client frame; every failure becomes an error frame, never a thrown error. */
export async function handleFrame(ctx: AppContext, hub: Hub, client: Client, raw: string): Promise<void> {
  let frame: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    frame = parsed as Record<string, unknown>;
  } catch {
    return hub.send(client, errorFrame(ApiError.badRequest('Frames must be JSON objects'), {}));
  }
  // Same bound as HTTP bodies: echoing a 10,000-deep `type` overflowed JSON.stringify (INTERNAL).
  if (tooDeep(frame, MAX_JSON_DEPTH)) {
    return hub.send(client, errorFrame(ApiError.badRequest(`Frames may be nested at most ${MAX_JSON_DEPTH} levels deep`), {}));
  }
  const id = typeof frame.id === 'string' || typeof frame.id === 'number' ? frame.id : undefined;
  const topic = typeof frame.topic === 'string' ? frame.topic : undefined;
  try {
    if (client.auth && !(await checkSession(client))) {
      hub.send(client, errorFrame(ApiError.unauthorized('Session ended; sign in again'), { topic, id }));
      return hub.close(client, 1008, 'Session ended; sign in again');
    }
    switch (frame.type) {
      case 'subscribe': {
        if (!client.topics.has(topic ?? '') && client.topics.size >= MAX_TOPICS) throw ApiError.badRequest(`At most ${MAX_TOPICS} subscriptions per connection`);
        const t = await checkTopic(client, frame.topic);
        const last = frame.lastEventId !== undefined ? frame.lastEventId : client.lastEventId;
        if (last !== undefined && (typeof last !== 'string' || !last)) throw ApiError.badRequest("'lastEventId' must be the id of an event frame (a non-empty string)");
        // A resume: the events after `last` on this topic, sent right after `subscribed`, in the
        // same turn as the subscription, so none falls between them and the live ones.
        const point = last !== undefined ? hub.resumePoint(client.ws.id, last) : -1;
        hub.subscribe(client, t);
        hub.send(client, { type: 'subscribed', topic: t, ...(last !== undefined ? { resumed: point >= 0 } : {}), ...(id !== undefined ? { id } : {}) });
        return hub.replay(client, t, point);
      }
      case 'unsubscribe': {
        if (topic === undefined) throw ApiError.badRequest("'topic' is required");
        hub.unsubscribe(client, topic);
        return hub.send(client, { type: 'unsubscribed', topic, ...(id !== undefined ? { id } : {}) });
      }
      case 'message': {
        if (!client.auth) throw ApiError.unauthorized('Sign in to post messages');
        const input = { channelId: frame.channelId as string, text: frame.text as string, ...(frame.messageType !== undefined ? { type: frame.messageType as string } : {}) };
        await postMessage(ctx, client.ws, input, { auth: client.auth });
        return;
      }
      default:
        throw ApiError.badRequest(`Unknown frame type ${JSON.stringify(frame.type ?? null)}; use subscribe, unsubscribe or message`);
    }
  } catch (err) {
    hub.send(client, errorFrame(err, { topic, id }));
  }
}

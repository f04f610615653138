// The realtime hub: connected sockets per workspace and topic, bounded sends, and the fan-out
// of bus events to the topics that carry them (chat:<channelId>, database:<collection>).
// Access is checked when a socket subscribes; per event only pure checks run (channel member
// lists carried by channel.updated, and the collection's read rule record by record).
import WebSocket from 'ws';
import type { AuthInfo } from '../caller.js';
import type { BusEvent } from '../../core/bus.js';
import type { Workspace } from '../../storage/workspace.js';
import { canReadRecord } from '../database/index.js';
import { storedDocJson } from '../../core/http.js';

/** A record write's event: its data is the record as stored (never changed afterwards). */
const isStoredRecord = (event: BusEvent) => event.type.startsWith('record.') && event.data !== null && typeof event.data === 'object';

export interface Client {
  socket: WebSocket;
  ws: Workspace;
  /** null for an anonymous socket (public `database:` topics only). */
  auth: AuthInfo | null;
  topics: Set<string>;
  /** Cleared at each ping, set by the pong. */
  alive: boolean;
  closed: boolean;
  /** Client frames received but not yet handled (reading pauses above a bound). */
  pending: number;
  queue: Promise<void>;
  /** Who the socket counts against for the per-principal bound (`user:<id>` or `addr:<ip>`). */
  principal?: string;
  /** While the socket's session or access is being re-checked, its events wait here, then go
   *  out judged with the outcome (so none reaches it on rights it no longer has, and none is
   *  lost to a check that finds nothing changed). */
  held?: Held[];
  holds?: number;
  /** `?lastEventId=` of the upgrade: subscriptions without their own resume from it. */
  lastEventId?: string;
}

interface Held { topic: string; frame: Buffer; may: (c: Client) => boolean }

/** Server frames. `id` echoes the client frame's `id` when it had one. */
export type ServerFrame =
  | { type: 'subscribed' | 'unsubscribed'; topic: string; reason?: string; id?: unknown; resumed?: boolean }
  | { type: 'event'; id: string; topic: string; event: string; data: unknown }
  | { type: 'error'; code: string; message: string; topic?: string; details?: unknown; id?: unknown };

/** An event kept for resuming: its frame, its topic and who may see it. */
interface Kept extends Held { id: string; at: number }

/** Events kept per workspace for clients that reconnect (`lastEventId`): the most recent ones,
 *  up to this many, this many bytes of frames, and this age. */
export const RESUME_MAX_EVENTS = 10_000;
export const RESUME_MAX_BYTES = 8 * 1024 * 1024;
export const RESUME_MAX_AGE_MS = 5 * 60_000;
/** A resume also sends the events published up to this long before the last one seen: processes
 *  relay each other's events with a small delay, so the order one process saw them in is not
 *  exactly another's. The client drops the ones it already has by their id. */
export const RESUME_SKEW_MS = 5000;

class KeptEvents {
  /** The kept events, oldest first, from `start` on: the ones before it were dropped (emptied,
   *  so their frames can go) and are cut off the array many at a time, not one per event (taking
   *  the first of 10,000 entries off an array moves all the others: most of a write's cost here). */
  private list: Array<Kept | undefined> = [];
  private start = 0;
  bytes = 0;

  /** The kept events, oldest first (indexes stay valid until the next `add`). */
  get items(): Kept[] {
    if (this.start) { this.list.splice(0, this.start); this.start = 0; }
    return this.list as Kept[];
  }

  add(k: Kept): void {
    const list = this.list;
    list.push(k);
    this.bytes += k.frame.length;
    const oldest = Date.now() - RESUME_MAX_AGE_MS;
    while (this.start < list.length - 1) {
      const first = list[this.start]!;
      if (list.length - this.start <= RESUME_MAX_EVENTS && this.bytes <= RESUME_MAX_BYTES && first.at >= oldest) break;
      this.bytes -= first.frame.length;
      list[this.start++] = undefined;
    }
    if (this.start >= DROP_AT_ONCE && this.start * 2 >= list.length) { list.splice(0, this.start); this.start = 0; }
  }
}

/** Dropped kept events are cut off the array once this many (and at least half of it) are. */
const DROP_AT_ONCE = 1024;

interface WorkspaceClients { ws: Workspace | undefined; clients: Set<Client>; topics: Map<string, Set<Client>> }

export class Hub {
  private spaces = new Map<string, WorkspaceClients>();
  private kept = new Map<string, KeptEvents>();
  /** A workspace without sockets, as the fan-out sees it (read only: never registered). */
  private readonly noClients: WorkspaceClients = { ws: undefined, clients: new Set(), topics: new Map() };

  constructor(private readonly maxBuffered: number, private readonly workspaceOf?: (id: string) => Workspace | undefined) {}

  add(client: Client): void {
    let space = this.spaces.get(client.ws.id);
    if (!space || space.ws !== client.ws) {
      space = { ws: client.ws, clients: new Set(), topics: new Map() };
      this.spaces.set(client.ws.id, space);
    }
    space.clients.add(client);
  }

  remove(client: Client): void {
    const space = this.spaces.get(client.ws.id);
    if (!space) return;
    for (const topic of client.topics) this.unlink(space, client, topic);
    client.topics.clear();
    space.clients.delete(client);
    if (space.clients.size === 0 && this.spaces.get(client.ws.id) === space) this.spaces.delete(client.ws.id);
  }

  subscribe(client: Client, topic: string): void {
    const space = this.spaces.get(client.ws.id);
    if (!space || client.closed) return;
    client.topics.add(topic);
    let set = space.topics.get(topic);
    if (!set) space.topics.set(topic, (set = new Set()));
    set.add(client);
  }

  unsubscribe(client: Client, topic: string, reason?: string): void {
    const space = this.spaces.get(client.ws.id);
    if (!client.topics.delete(topic) || !space) return;
    this.unlink(space, client, topic);
    if (reason) this.send(client, { type: 'unsubscribed', topic, reason });
  }

  clientsOf(wsId: string): Client[] { return [...(this.spaces.get(wsId)?.clients ?? [])]; }

  /** Open sockets of one principal in a workspace. */
  countOf(wsId: string, principal: string): number {
    let n = 0;
    for (const c of this.spaces.get(wsId)?.clients ?? []) if (c.principal === principal) n++;
    return n;
  }

  /** Holds the client's events until `release` (nested holds release on the last one). */
  hold(client: Client): void {
    client.holds = (client.holds ?? 0) + 1;
    client.held ??= [];
  }

  /** Sends what was held, judged now: only for topics still followed and records still readable. */
  release(client: Client): void {
    if (!client.holds || --client.holds > 0) return;
    const held = client.held ?? [];
    client.held = undefined;
    for (const h of held) if (client.topics.has(h.topic) && h.may(client)) this.send(client, h.frame);
  }

  /** Where a resume from `lastEventId` starts in this workspace's kept events, or -1 when that
   *  event is not kept here (too old, or published before this process started). */
  resumePoint(wsId: string, lastEventId: string): number {
    const items = this.kept.get(wsId)?.items ?? [];
    for (let i = items.length - 1; i >= 0; i--) if (items[i].id === lastEventId) return i;
    return -1;
  }

  /** Sends the kept events of `topic` after the resume point (and those published shortly
   *  before it, RESUME_SKEW_MS) that the client may see. Call it in the same turn as subscribe,
   *  so that no event falls between the replay and the live ones. */
  replay(client: Client, topic: string, point: number): void {
    const items = this.kept.get(client.ws.id)?.items ?? [];
    if (point < 0 || point >= items.length) return;
    const from = items[point].at - RESUME_SKEW_MS;
    for (let i = 0; i < items.length; i++) {
      const k = items[i];
      if (i === point || k.topic !== topic || (i < point && k.at < from)) continue;
      this.deliver(client, k);
    }
  }

  all(): Client[] { return [...this.spaces.values()].flatMap((s) => [...s.clients]); }

  /** Sends a frame unless the socket's send buffer is past the bound: then the socket is
   *  closed (1013) instead, so a reader that stalls cannot make the server's memory grow. */
  send(client: Client, frame: ServerFrame | Buffer): void {
    const socket = client.socket;
    if (client.closed || socket.readyState !== WebSocket.OPEN) return;
    if (socket.bufferedAmount > this.maxBuffered) {
      this.close(client, 1013, `Slow consumer: more than ${this.maxBuffered} bytes waiting to be read`);
      return;
    }
    socket.send(Buffer.isBuffer(frame) ? frame : JSON.stringify(frame), { binary: false });
  }

  close(client: Client, code: number, reason: string): void {
    if (client.closed) return;
    client.closed = true;
    this.remove(client);
    try { client.socket.close(code, reason); } catch { client.socket.terminate(); }
  }

  /** Delivers one bus event to the sockets that may see it, and keeps it for resumes. */
  dispatch(event: BusEvent): void {
    const space = this.spaces.get(event.app) ?? this.noClients;
    const data = event.data as Record<string, unknown>;
    if (event.type.startsWith('message.')) {
      this.fanOut(space, `chat:${String(data.channelId)}`, event, () => true);
    } else if (event.type === 'channel.updated') {
      // Membership changes arrive here: removed members stop receiving (admins always may).
      const topic = `chat:${String(data._id)}`;
      const members = Array.isArray(data.members) ? (data.members as string[]) : [];
      const allowed = (c: Client) => !!c.auth && (c.auth.isAdmin || members.includes(c.auth.userId));
      for (const c of [...(space.topics.get(topic) ?? [])]) if (!allowed(c)) this.unsubscribe(c, topic, 'removed from the channel');
      this.fanOut(space, topic, event, () => true);
    } else if (event.type === 'channel.deleted') {
      const topic = `chat:${String(data._id)}`;
      this.fanOut(space, topic, event, () => true);
      for (const c of [...(space.topics.get(topic) ?? [])]) this.unsubscribe(c, topic, 'channel deleted');
    } else if (event.type.startsWith('record.') && event.collection) {
      const ws = space.ws ?? this.workspaceOf?.(event.app);
      const def = ws?.settings.data.collections.find((c) => c._id === event.collection);
      if (!def) return;
      this.fanOut(space, `database:${event.collection}`, event, (c) => canReadRecord(def, c.auth, data));
    } else if (event.type === 'user.deleted') {
      for (const c of [...space.clients]) if (c.auth?.userId === data._id) this.close(c, 1008, 'User deleted');
    }
  }

  private fanOut(space: WorkspaceClients, topic: string, event: BusEvent, may: (c: Client) => boolean): void {
    // Serialised once for every recipient, and kept for clients that reconnect. A record's text
    // is the stored document's cached one, which the write's answer then sends as well.
    const frame = Buffer.from(isStoredRecord(event)
      ? `{"type":"event","id":${JSON.stringify(event.id)},"topic":${JSON.stringify(topic)},"event":${JSON.stringify(event.type)},"data":${storedDocJson(event.data)}}`
      : JSON.stringify({ type: 'event', id: event.id, topic, event: event.type, data: event.data }));
    const k: Kept = { id: event.id, at: Date.parse(event.timestamp) || Date.now(), topic, frame, may };
    let kept = this.kept.get(event.app);
    if (!kept) this.kept.set(event.app, (kept = new KeptEvents()));
    kept.add(k);
    for (const c of [...(space.topics.get(topic) ?? [])]) this.deliver(c, k);
  }

  private deliver(c: Client, h: Held): void {
    if (c.held) c.held.push(h);
    else if (h.may(c)) this.send(c, h.frame);
  }

  /** Forgets a workspace's kept events (deleted, or its content replaced). */
  forget(wsId: string): void { this.kept.delete(wsId); }

  private unlink(space: WorkspaceClients, client: Client, topic: string): void {
    const set = space.topics.get(topic);
    if (!set) return;
    set.delete(client);
    if (set.size === 0) space.topics.delete(topic);
  }
}

// Events kept with their writes on the embedded driver, so that a change acknowledged just
// before a kill -9 still has its webhook deliveries made after the restart:
// - a write that publishes an event puts the event in its own append, as a line after the
//   document's (`{"$$event":{...},"$$doc":true}`: its data is the document line just before;
//   `{"$$event":{...,"data":...}}` when the event carries something else), so the file holds the
//   event exactly when it holds the change, at no extra write;
// - once the event's owed listeners are done with it (its deliveries are stored), it is settled:
//   a `{"$$settled":[ids]}` line is appended, many at once, a moment later; a compaction keeps
//   only the events not settled yet;
// - the store names holding events are listed in the workspace's `events-pending` file (one
//   append the first time a store keeps an event in a run), so a start finds them without
//   loading every store; the list is emptied when a clean stop leaves no event unsettled;
// - at a start, the events of the listed stores not settled are published again (marked
//   recovered): webhooks store their deliveries under ids made from the event and the webhook,
//   so a delivery stored before the kill is not stored twice.
// An event settled in the last moment before a kill (its line not appended yet) is published
// again after the restart: its delivery, if already made, may be sent a second time with the
// same `webhook-id`, which receivers de-duplicate on.
import { appendFile, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BusEvent } from '../../core/bus.js';
import { logger } from '../../core/logger.js';
import type { GroupCommitStore } from './group-commit.js';

/** The workspace file listing the stores that may hold unsettled events. */
export const PENDING_FILE = 'events-pending';

/** The line of `event` appended after the line of `doc` (its data, when it is that document). */
export function eventLine(event: BusEvent, doc: object | undefined): string {
  const { outboxed: _o, recovered: _r, relayed: _rel, data, ...head } = event;
  return doc !== undefined && data === doc
    ? `{"$$event":${JSON.stringify(head)},"$$doc":true}\n`
    : `{"$$event":${JSON.stringify({ ...head, data })}}\n`;
}

/** The line of an event as a compaction writes it (its data whole). */
export function fullEventLine(event: BusEvent): string {
  const { outboxed: _o, recovered: _r, relayed: _rel, ...rest } = event;
  return `${JSON.stringify({ $$event: rest })}\n`;
}

/** One workspace's kept events: which store holds each one not settled yet, and the list of
 *  store names a start looks into. Off until `start` (offline commands keep no events). */
export class KeptEvents {
  private on = false;
  private starting = false;
  /** Store names in the pending file. */
  private listed = new Set<string>();
  private listing = new Map<string, Promise<void>>();
  /** The store holding each event not settled yet. */
  private holders = new Map<string, GroupCommitStore>();

  constructor(private readonly dir: string, private readonly wsId: string) {}

  private get file(): string { return join(this.dir, PENDING_FILE); }

  get enabled(): boolean { return this.on; }

  /** Turns keeping on and returns the events a previous run left unsettled, oldest first, each
   *  now held here until settled; `open` opens a store by name. */
  async start(open: (name: string) => Promise<GroupCommitStore>): Promise<BusEvent[]> {
    this.on = true;
    this.starting = true;
    try {
      return await this.recover(open);
    } finally {
      this.starting = false;
    }
  }

  /** A store opened while keeping is on, outside the start: one loaded again after a swap
   *  replaced its content (an import, restore or reset). Events its file still holds came before
   *  the new content, and the dispatch of those in flight was told to the store it replaced:
   *  they are settled here, never published again. */
  opened(store: GroupCommitStore): void {
    if (!this.on || this.starting) return;
    for (const event of store.takeLoadedEvents()) store.settleEvent(event.id);
  }

  private async recover(open: (name: string) => Promise<GroupCommitStore>): Promise<BusEvent[]> {
    const text = await readFile(this.file, 'utf8').catch(() => '');
    const names = [...new Set(text.split('\n').filter(Boolean))];
    for (const n of names) this.listed.add(n);
    const out: BusEvent[] = [];
    for (const name of names) {
      let store: GroupCommitStore;
      try {
        store = await open(name);
      } catch (err) {
        logger.error({ err: (err as Error).message, workspace: this.wsId, store: name }, 'could not load a store holding unsettled events: they wait for the next start');
        continue;
      }
      for (const event of store.takeLoadedEvents()) {
        // A fork's store file starts as its source's: the source's events are not the fork's.
        if (event.app !== this.wsId) { store.settleEvent(event.id); continue; }
        this.holders.set(event.id, store);
        out.push(event);
      }
    }
    return out.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
  }

  /** Before a write to store `name` keeps an event: the store is listed (once per run). */
  list(name: string): Promise<void> | undefined {
    if (this.listed.has(name)) return undefined;
    let p = this.listing.get(name);
    if (!p) {
      p = appendFile(this.file, `${name}\n`, { mode: 0o600 }).then(() => { this.listed.add(name); }).finally(() => this.listing.delete(name));
      this.listing.set(name, p);
    }
    return p;
  }

  /** The write keeping `id` is in `store`'s file. */
  held(id: string, store: GroupCommitStore): void { this.holders.set(id, store); }

  /** The event's owed listeners are done with it (or its write was undone). */
  settled(id: string): void {
    const store = this.holders.get(id);
    if (!store) return;
    this.holders.delete(id);
    store.settleEvent(id);
  }

  /** After the stores closed: the list keeps the stores still holding unsettled events (or not
   *  opened in this run); empty, the file goes. */
  async close(stillHolding: (name: string) => boolean): Promise<void> {
    if (!this.on) return;
    this.on = false;
    const keep = [...this.listed].filter(stillHolding);
    this.listed.clear();
    this.holders.clear();
    if (keep.length) await writeFile(this.file, keep.map((n) => `${n}\n`).join(''), { mode: 0o600 });
    else await rm(this.file, { force: true });
  }
}

// The embedded DocStore seen through the store interface the modules use (store.ts), with its
// share of write groups: an undo log of the group's writes (write-group.ts), and what requests
// outside a group see meanwhile (group-hold.ts).
import type { Condition, Doc, StoreQuery } from '../query.js';
import type { IndexSpec, Store, UpdateOptions, WriteOptions } from '../store.js';
import type { BusEvent } from '../../core/bus.js';
import { activeWriteGroup, type WriteGroup } from '../write-group.js';
import { GroupHold } from './group-hold.js';
import { translateNedbError, type DocStore } from './doc-store.js';

/** The embedded DocStore seen through the shared interface (one wrapper per DocStore, so that
 *  per-store state kept by modules in WeakMaps follows the store). */
export class EmbeddedStore implements Store {
  /** While a write group writes here, what requests outside it see (group-hold.ts). */
  private readonly hold = new GroupHold();
  constructor(readonly doc: DocStore) {}
  async get(id: string) { return this.getNow(id); }
  getNow(id: string) {
    const before = this.hold.beforeImage(id);
    return before ? before.doc : this.doc.get(id);
  }
  async find(q: StoreQuery) { const wait = this.hold.settled(); if (wait) await wait; return this.doc.findSliced(q); }
  async findBy(path: string, value: unknown) { const wait = this.hold.settled(); if (wait) await wait; return this.doc.findBy(path, value); }
  async all() { const wait = this.hold.settled(); if (wait) await wait; return this.doc.all(); }
  async count() { const wait = this.hold.settled(); if (wait) await wait; return this.doc.size; }
  insert(doc: Doc, options?: WriteOptions) { return this.write([doc._id], () => this.doc.insert(doc, options?.event), options?.event); }
  insertNew(doc: Doc, options?: WriteOptions) { return this.write([doc._id], () => this.doc.insertNew(doc, options?.event), options?.event); }
  insertMany(docs: Doc[]) { return this.write(docs.map((d) => d._id), () => this.doc.insertMany(docs)); }
  replace(id: string, doc: Doc, options?: WriteOptions) { return this.write([id], () => this.doc.replace(id, doc, options?.event), options?.event); }
  remove(id: string, options?: WriteOptions) { return this.write([id], () => this.doc.remove(id, options?.event), options?.event); }
  async removeWhere(conditions: Condition[]) {
    await this.hold.settled();
    const ids = this.doc.find({ conditions, sort: [], limit: Number.MAX_SAFE_INTEGER, offset: 0 }).data.map((d) => d._id);
    if (!ids.length) return 0;
    return this.write(ids, () => this.doc.removeWhere({ _id: { $in: ids } }));
  }
  async replaceAll(docs: Doc[]) {
    if (activeWriteGroup()) throw new Error('replaceAll cannot be part of a write group');
    await this.hold.settled();
    return this.doc.replaceAll(docs).catch((err) => { throw translateNedbError(err); });
  }
  exclusive<T>(key: string, fn: () => Promise<T> | T) {
    return this.hold.section<T>((run) => this.doc.exclusive(key, run), fn);
  }
  update(id: string, change: (current: Doc) => Doc | undefined | Promise<Doc | undefined>, options?: UpdateOptions) {
    const g = activeWriteGroup();
    if (g) {
      let event: BusEvent | undefined;
      const eventOf = options?.event && ((doc: Doc) => (event = options.event!(doc)));
      return this.tracked(g, [id], () => this.doc.update(id, change, eventOf), () => event);
    }
    // doc.update takes the document's section itself: enter it as exclusive() would.
    return this.hold.section((run) => this.doc.exclusive(id, run), async () => {
      const current = this.doc.get(id);
      if (!current) return undefined;
      const next = await change(current);
      if (!next) return undefined;
      const doc = { ...next, _id: id };
      return this.doc.replace(id, doc, options?.event?.(doc));
    });
  }

  /** A write: tracked when it belongs to a write group; outside one, it waits while a group
   *  holds the store (unless it runs in a section admitted before the group began). */
  private write<T>(ids: string[], run: () => Promise<T>, event?: BusEvent): Promise<T> {
    const g = activeWriteGroup();
    if (g) return this.tracked(g, ids, run, () => event);
    const wait = this.hold.settled();
    return wait ? wait.then(run) : run();
  }

  /** A write inside a write group (write-group.ts): once it succeeded, the group can put the
   *  documents it touched back as they were before it. */
  private async tracked<T>(group: WriteGroup, ids: string[], write: () => Promise<T>, eventOf?: () => BusEvent | undefined): Promise<T> {
    const before = ids.map((id) => this.doc.get(id));
    this.hold.track(group, ids, (id) => this.doc.get(id));
    const out = await write();
    const event = eventOf?.();
    group.onUndo(async () => {
      // The group's events are never published: a kept one is settled.
      if (event?.outboxed) this.doc.kept?.events.settled(event.id);
      for (let i = ids.length - 1; i >= 0; i--) {
        const was = before[i];
        const now = this.doc.get(ids[i]);
        if (was) await (now ? this.doc.replace(ids[i], was) : this.doc.insert(was));
        else if (now) await this.doc.remove(ids[i]);
      }
    });
    return out;
  }
  ensureIndex(spec: IndexSpec) { return this.doc.ensureIndex(spec); }
  removeIndex(fieldName: string) { return this.doc.removeIndex(fieldName); }
  async listIndexes() { return this.doc.listIndexes(); }
  drop() { return this.doc.drop(); }
}

const wrappers = new WeakMap<DocStore, EmbeddedStore>();

/** The embedded DocStore seen through the shared interface. */
export function embeddedStore(s: DocStore): EmbeddedStore {
  let w = wrappers.get(s);
  if (!w) { w = new EmbeddedStore(s); wrappers.set(s, w); }
  return w;
}


// The embedded store's staged changes: a change prepared against the store (checked against
// its unique indexes, its file content worked out) but applied only once someone else has
// written that content: a swap (swap.ts) writes several stores' changes through one journal.
import model from '@seald-io/nedb/lib/model.js';
import type { NedbIndex } from './nedb-types.js';
import type { Doc } from '../query.js';
import { compactText, serialize } from './datafile.js';
import { bulkResetIndex } from './bulk-index.js';
import { checkObject } from './nedb-patches.js';
import { GroupCommitStore } from './group-commit.js';

/** A change prepared against the store but not yet applied: its file content and how to apply
 *  it in memory. Swaps (state.ts) write several stores' changes through a journal first. */
export interface StagedChange {
  store: StagingStore;
  /** Lines to append to the store's file, or the whole new file (`rewrite`). */
  text: string;
  rewrite: boolean;
  /** Applies the change in memory (call once the file holds it; cannot fail). */
  apply(): void;
}

export class StagingStore extends GroupCommitStore {
  /** Prepares replacing the whole content with `docs` (indexes built aside: a unique violation
   *  throws here and changes nothing). Call inside `holdWrites`. */
  stageReplaceAll(docs: Doc[]): StagedChange {
    this.buildIdIndex();
    const copies = docs.map((d) => model.deepCopy(d));
    const fresh: Record<string, NedbIndex> = {};
    for (const [key, index] of [...Object.entries(this.engine.indexes), ...this.deferred]) {
      const built = new this.IndexClass({ fieldName: index.fieldName, unique: index.unique, sparse: index.sparse });
      bulkResetIndex(built, copies);
      fresh[key] = built;
    }
    return {
      store: this, rewrite: true, text: this.file ? compactText(copies, this.indexSpecs()) : '',
      apply: () => {
        this.changed();
        this.orders.clear(); // the documents are replaced without the index maintenance it follows
        this.header = '';
        this.deferred.clear();
        for (const key of Object.keys(this.engine.indexes)) delete this.engine.indexes[key];
        Object.assign(this.engine.indexes, fresh);
        this.sharedIndexes = false; // built here for this store alone
        this.count = copies.length;
        this.writesSinceCompaction = 0;
        this.pendingEvents.clear(); // the file's events went with its content
      },
    };
  }

  /** Prepares a set of changes (documents to put, whole, and ids to delete) as lines to append;
   *  checked against the unique indexes (a violation throws here and changes nothing). Call
   *  inside `holdWrites`. */
  stageChanges(put: Doc[], deleted: string[]): StagedChange {
    this.buildIdIndex();
    const prepared = put.map((d) => this.prepare(d));
    const removed = deleted.map((id) => this.get(id)).filter((d): d is Doc => !!d);
    const pairs = prepared.map((p) => ({ oldDoc: this.get(p._id), newDoc: p }));
    const applyMemory = () => {
      for (const d of removed) this.engine._removeFromIndexes(d);
      for (const { oldDoc, newDoc } of pairs) {
        if (oldDoc) this.engine._updateIndexes([{ oldDoc, newDoc }]);
        else this.engine._addToIndexes(newDoc);
      }
    };
    const undoMemory = (upTo: number) => {
      for (let i = upTo - 1; i >= 0; i--) {
        const { oldDoc, newDoc } = pairs[i];
        if (oldDoc) this.engine._updateIndexes([{ oldDoc: newDoc, newDoc: oldDoc }]);
        else this.engine._removeFromIndexes(newDoc);
      }
      for (const d of removed) this.engine._addToIndexes(d);
    };
    // A trial run, undone in the same tick (no reader sees it): finds unique violations.
    for (const d of removed) this.engine._removeFromIndexes(d);
    let done = 0;
    try {
      for (const { oldDoc, newDoc } of pairs) {
        if (oldDoc) this.engine._updateIndexes([{ oldDoc, newDoc }]);
        else this.engine._addToIndexes(newDoc);
        done++;
      }
    } finally {
      undoMemory(done);
    }
    const lines = [...removed.map((d) => serialize({ $$deleted: true, _id: d._id })), ...prepared.map((p) => serialize(p))];
    return {
      store: this, rewrite: false, text: lines.length ? this.header + lines.join('\n') + '\n' : '',
      apply: () => {
        this.changed();
        if (lines.length) this.header = '';
        applyMemory();
        this.count += pairs.filter((p) => !p.oldDoc).length - removed.length;
        this.writesSinceCompaction += lines.length;
      },
    };
  }

  /** Runs `fn` with this store's write queue held: no other write starts until it settles. */
  holdWrites<T>(fn: () => Promise<T>): Promise<T> { return this.write(fn); }

  /** The file now holds `bytes` written by someone else (a swap's journal): keep appending after them. */
  fileReplaced(bytes: number): void { this.file?.reset(bytes); }

  /** A copy of `doc` as it will be stored: an id, nedb's key rules. */
  protected prepare(doc: Doc): Doc & { _id: string } {
    const copy = model.deepCopy(doc) as Doc;
    if (copy._id === undefined) throw new Error('a document needs an _id');
    checkObject(copy);
    return copy as Doc & { _id: string };
  }

  /** Would these documents fit the unique indexes? Checked by inserting them and taking them
   *  out again in the same tick (no reader sees it); throws nedb's uniqueViolated error. */
  protected tryInsert(docs: Doc[]): void {
    const unique = Object.entries(this.engine.indexes).filter(([k, i]) => i.unique && k !== '_id');
    if (unique.length === 0 && docs.length === 1) return;
    let added = 0;
    try {
      for (const d of docs) { this.engine._addToIndexes(d); added++; }
    } finally {
      for (let i = 0; i < added; i++) this.engine._removeFromIndexes(docs[i]);
    }
  }

  protected tryUpdate(pairs: Array<{ oldDoc: Doc; newDoc: Doc }>): void {
    if (!Object.entries(this.engine.indexes).some(([k, i]) => i.unique && k !== '_id')) return;
    this.ownIndexes(); // the check below changes the indexes directly, not through the engine
    for (const [key, index] of Object.entries(this.engine.indexes)) {
      if (!index.unique || key === '_id') continue;
      const i = index as unknown as { update(a: unknown, b: unknown): void; revertUpdate(a: unknown, b: unknown): void };
      for (const { oldDoc, newDoc } of pairs) { i.update(oldDoc, newDoc); i.revertUpdate(oldDoc, newDoc); }
    }
  }
}

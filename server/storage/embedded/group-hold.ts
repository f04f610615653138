// What the rest of the process sees of an embedded store while a write group (an atomic batch)
// is writing to it. The embedded stores apply a group's writes as they go and undo them on
// failure, so without this a concurrent request could read a write that is later undone. While
// a group holds the store, a request outside the group:
//  - reading one document by id gets it as it was before the group touched it (its before
//    image), at once: a document the group created is absent, one it changed or removed is its
//    old self;
//  - listing, counting or writing waits until the group has committed or been undone;
//  - entering a read-modify-write section waits too, and a section that was queued behind one of
//    the group's on the same key steps back and waits.
// A section that was already running when the group began goes on without waiting (it holds
// its key, which the group may be waiting for: making it wait for the group would deadlock).
// The group's own requests see their writes.
//
// A section is marked as such through its async context (AsyncLocalStorage) only once the
// process has begun a write group: on Node 20, the first AsyncLocalStorage.run turns on V8's
// promise hooks for the whole process, which costs every promise of every request from then on
// (about a tenth of a record write's CPU time). Until a group exists nothing can hold a store,
// so a section needs no mark; the first group begins once the sections admitted unmarked have
// ended (none of them can be waiting for it: no store is held yet).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Doc } from '../query.js';
import { activeWriteGroup, beforeFirstWriteGroup, type WriteGroup } from '../write-group.js';

/** Set inside a read-modify-write section admitted outside any group, while it runs (work it
 *  leaves behind, an event handler say, is outside once the section has ended). */
const inSection = new AsyncLocalStorage<{ open: boolean }>();
const sectionOpen = () => inSection.getStore()?.open === true;

/** Sections of the process and their marks: `marking` once the first group has begun;
 *  `unmarked`, the sections admitted before that still running, and `drained`, what the first
 *  group waits on while there are some. Process-wide, as the promise hooks are. */
const sections = { marking: false, unmarked: 0, drained: undefined as (() => void) | undefined };
beforeFirstWriteGroup(() => {
  sections.marking = true;
  if (sections.unmarked === 0) return undefined;
  return new Promise<void>((resolve) => { sections.drained = resolve; });
});

/** Runs an admitted section's `fn`, marked when groups exist, counted while they do not. */
function runSection<T>(fn: () => Promise<T> | T): Promise<T> {
  if (sections.marking) return runMarked(fn);
  sections.unmarked++;
  // No async function here: this runs for every record write, and its promise and the await
  // in it were a good part of what the write path allocates.
  let out: Promise<T> | T;
  try {
    out = fn();
  } catch (err) {
    unmarkedEnded();
    return Promise.reject(err);
  }
  return Promise.resolve(out).then((value) => { unmarkedEnded(); return value; }, (err) => { unmarkedEnded(); throw err; });
}

function unmarkedEnded(): void {
  if (--sections.unmarked === 0 && sections.drained) { sections.drained(); sections.drained = undefined; }
}

async function runMarked<T>(fn: () => Promise<T> | T): Promise<T> {
  const mark = { open: true };
  try { return await inSection.run(mark, fn); } finally { mark.open = false; }
}

export class GroupHold {
  private group: WriteGroup | undefined;
  private readonly before = new Map<string, Doc | undefined>();
  private done: Promise<void> = Promise.resolve();

  /** Called by a write of `group` about to change documents `ids` (each read before the write). */
  track(group: WriteGroup, ids: string[], read: (id: string) => Doc | undefined): void {
    if (this.group !== group) {
      this.group = group;
      this.before.clear();
      this.done = new Promise<void>((resolve) => {
        group.onEnd(() => {
          if (this.group === group) { this.group = undefined; this.before.clear(); }
          resolve();
        });
      });
    }
    for (const id of ids) if (!this.before.has(id)) this.before.set(id, read(id));
  }

  /** True when the caller is outside the holding group (and so must not see its writes). */
  private outside(): boolean {
    return this.group !== undefined && activeWriteGroup() !== this.group;
  }

  /** For a read by id outside the group: `{ doc }`, the document as it was before the group
   *  touched it; undefined when the read may look at the store as it is. */
  beforeImage(id: string): { doc: Doc | undefined } | undefined {
    if (!this.outside() || !this.before.has(id)) return undefined;
    return { doc: this.before.get(id) };
  }

  /** Must this caller wait before listing or writing? (Not inside an admitted section.) */
  mustWait(): boolean {
    return this.outside() && !sectionOpen();
  }

  /** Resolves once no group holds the store for this caller; undefined when none does (nothing
   *  to wait for: the caller goes on in the same turn, with no promise made). */
  settled(): Promise<void> | undefined {
    return this.mustWait() ? this.whileHeld() : undefined;
  }

  private async whileHeld(): Promise<void> {
    while (this.mustWait()) await this.done;
  }

  /** Runs a read-modify-write section outside any group: waits while a group holds the store,
   *  enters with `enter`, and steps back to wait again if a group began meanwhile. */
  section<T>(enter: <R>(fn: () => Promise<R> | R) => Promise<R>, fn: () => Promise<T> | T): Promise<T> {
    if (sectionOpen() || activeWriteGroup()) return enter(fn);
    const wait = this.settled();
    if (wait) return wait.then(() => this.section(enter, fn));
    return enter<T | typeof STEP_BACK>(() => (this.mustWait() ? STEP_BACK : runSection(fn)))
      .then((out) => (out === STEP_BACK ? this.section(enter, fn) : out as T));
  }
}

export const STEP_BACK: unique symbol = Symbol('step back');

// A group of writes applied all or nothing (an atomic batch of the v2 API), kept behind the
// storage layer so that the modules writing stay blind to the engine:
//  - the embedded stores keep an undo log of the group's writes (each write's document before
//    and after) and, on failure, put every document back as it was, newest first;
//  - PostgreSQL runs the group's statements in one transaction (each statement under a
//    savepoint, so that an error a module catches, a unique violation say, does not poison the
//    rest), committed or rolled back at the end.
// Groups of one workspace run one after another (the workspace's write serialisation for
// groups). The group follows the async context of the function it runs (AsyncLocalStorage).
import { AsyncLocalStorage } from 'node:async_hooks';
import { KeyedSections } from './keyed-sections.js';

/** An engine's share of a group (PostgreSQL: its transaction). */
export interface GroupParticipant { commit(): Promise<void>; rollback(): Promise<void> }

export class WriteGroup {
  private readonly undo: Array<() => Promise<void>> = [];
  private readonly participants = new Map<object, GroupParticipant>();
  private readonly ended: Array<() => void> = [];
  /** Set once the group is committed or rolled back: work that outlives it (a timer started
   *  inside) writes on its own again. */
  closed = false;

  /** The participant of `key` (one per database), made on first use. */
  participant<T extends GroupParticipant>(key: object, make: () => T): T {
    let p = this.participants.get(key) as T | undefined;
    if (!p) { p = make(); this.participants.set(key, p); }
    return p;
  }

  /** Runs `fn` once the group is over: committed, or every write undone. */
  onEnd(fn: () => void): void { this.ended.push(fn); }

  /** Called once the group is over (committed or undone). */
  end(): void {
    for (const fn of this.ended.splice(0)) fn();
  }

  /** Remembers how to undo one write. */
  onUndo(fn: () => Promise<void>): void { this.undo.push(fn); }

  async commit(): Promise<void> {
    this.closed = true;
    for (const p of this.participants.values()) await p.commit();
  }

  async rollback(): Promise<void> {
    this.closed = true;
    const errors: unknown[] = [];
    for (const fn of this.undo.reverse()) await fn().catch((err: unknown) => { errors.push(err); });
    for (const p of this.participants.values()) await p.rollback().catch((err: unknown) => { errors.push(err); });
    if (errors.length) throw errors[0];
  }
}

const current = new AsyncLocalStorage<WriteGroup>();
const serial = new KeyedSections();

/** Work the first group of the process waits for before it begins (an engine that behaves
 *  differently once groups exist: the embedded stores' group-hold.ts). */
const firstGroupHooks: Array<() => Promise<void> | undefined> = [];
/** Settles once every hook of the first group has; undefined until a group begins. */
let groupsBegun: Promise<void> | undefined;

/** Registers `hook`, called as the first write group of the process begins; the groups wait
 *  for the promise it returns. Registered after that moment, it is called at once. */
export function beforeFirstWriteGroup(hook: () => Promise<void> | undefined): void {
  if (groupsBegun) void hook();
  else firstGroupHooks.push(hook);
}

/** The group the caller's writes belong to, if any. */
export function activeWriteGroup(): WriteGroup | undefined {
  const g = current.getStore();
  return g && !g.closed ? g : undefined;
}

/** Runs `fn` with its writes in one group, alone among the groups of `scope` (a workspace id);
 *  keeps them when `fn` says `commit`, undoes them all otherwise (and when it throws). */
export async function inWriteGroup<T>(scope: string, fn: () => Promise<{ commit: boolean; value: T }>): Promise<T> {
  await (groupsBegun ??= Promise.all(firstGroupHooks.splice(0).map((hook) => hook())).then(() => undefined));
  return serial.run(scope, async () => {
    const group = new WriteGroup();
    try {
      let outcome: { commit: boolean; value: T };
      try {
        outcome = await current.run(group, fn);
      } catch (err) {
        await group.rollback();
        throw err;
      }
      if (outcome.commit) await group.commit();
      else await group.rollback();
      return outcome.value;
    } finally {
      group.end();
    }
  });
}

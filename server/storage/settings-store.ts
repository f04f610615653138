// Small JSON documents (the workspace registry, a workspace's schema and settings) in lowdb:
// one file replaced atomically (written beside, flushed, renamed over: disk.ts), or memory only.
// Changes apply one after another, each on the result of the previous one, and a change becomes
// visible only once it is on disk: a failed write leaves the data as it was. Where several
// processes write the same settings (a workspace's row in PostgreSQL), the adapter brings a lock
// held across them, and every change re-reads the data under it first: two schema changes made
// at once through two processes both stay.
import { readFile } from 'node:fs/promises';
import { Low, Memory, type Adapter } from 'lowdb';
import * as disk from './disk.js';
import { toStorageError } from './errors.js';

/** lowdb's JSONFile, writing through disk.ts. */
class AtomicJsonFile<T> implements Adapter<T> {
  constructor(private readonly file: string) {}
  async read(): Promise<T | null> {
    await disk.remove(`${this.file}~`).catch(() => undefined); // a write cut short
    try {
      return JSON.parse(await readFile(this.file, 'utf8')) as T;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }
  async write(data: T): Promise<void> {
    try {
      await disk.writeAtomic(this.file, JSON.stringify(data, null, 2), 0o600);
    } catch (err) {
      throw toStorageError(err, this.file);
    }
  }
}

/** Settings kept where other processes write them too: `lock` runs a section alone across every
 *  process (the data is re-read at its start). */
export interface SharedAdapter<T> extends Adapter<T> {
  lock<R>(fn: () => Promise<R>): Promise<R>;
}

/** Writes a change within a section: applied to a copy of the current data, which it becomes
 *  once written (a throw leaves the data as it was). */
export type SettingsWriter<T> = <R>(change: (data: T) => R | Promise<R>) => Promise<R>;

export class SettingsStore<T extends object> {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(private readonly db: Low<T>, private readonly shared?: SharedAdapter<T>) {}

  static async open<T extends object>(file: string | undefined, defaults: T): Promise<SettingsStore<T>> {
    const db = new Low<T>(file ? new AtomicJsonFile<T>(file) : new Memory<T>(), structuredClone(defaults));
    await db.read();
    db.data = { ...structuredClone(defaults), ...(db.data ?? {}) };
    return new SettingsStore(db);
  }

  /** Settings kept elsewhere (a row in PostgreSQL), read and written through `adapter`. */
  static async openWith<T extends object>(adapter: SharedAdapter<T>, defaults: T): Promise<SettingsStore<T>> {
    const db = new Low<T>(adapter, structuredClone(defaults));
    await db.read();
    db.data = { ...structuredClone(defaults), ...(db.data ?? {}) };
    return new SettingsStore(db, adapter);
  }

  /** Runs after the changes queued before it. */
  private enqueue<R>(run: () => Promise<R>): Promise<R> {
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async refresh(): Promise<void> {
    const fresh = await this.db.adapter.read();
    if (fresh) this.db.data = fresh;
  }

  /** Reads the data again (another process changed it). */
  reload(): Promise<void> {
    return this.enqueue(() => this.refresh());
  }

  /** The current data; read-only outside `update` and `section`. */
  get data(): T { return this.db.data; }

  /** Runs `fn` alone among this store's changes (in this process, and across processes where
   *  the settings are shared), on the latest data: a read-modify-write that reads the settings,
   *  does other work (a schema change building indexes) and then writes them through `write`.
   *  `write` is valid only until `fn` settles. */
  section<R>(fn: (write: SettingsWriter<T>) => Promise<R>): Promise<R> {
    const run = async () => {
      if (this.shared) await this.refresh(); // another process may have written since
      let open = true;
      const write: SettingsWriter<T> = async (change) => {
        if (!open) throw new Error('settings written after their section ended');
        const draft = structuredClone(this.db.data);
        const result = await change(draft);
        await this.db.adapter.write(draft);
        this.db.data = draft;
        return result;
      };
      try {
        return await fn(write);
      } finally {
        open = false;
      }
    };
    const shared = this.shared;
    return this.enqueue(shared ? () => shared.lock(run) : run);
  }

  /** Applies a change to a copy of the latest data (after the changes queued before it; on
   *  shared settings re-read under their lock) and resolves once it is on disk, when it becomes
   *  the data. A throw (in `change` or from the disk) leaves the data as it was. */
  update<R>(change: (data: T) => R | Promise<R>): Promise<R> {
    return this.section((write) => write(change));
  }

  /** Replaces the whole content (restore, import). */
  async replace(data: T): Promise<void> {
    await this.update((d) => {
      for (const key of Object.keys(d)) delete (d as Record<string, unknown>)[key];
      Object.assign(d, structuredClone(data));
    });
  }

  /** Takes content already written to the file by someone else (a swap's journal). */
  adopt(data: T): void { this.db.data = structuredClone(data); }

  async flush(): Promise<void> { await this.queue; }
}

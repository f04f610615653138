// Small JSON documents (the workspace registry, a workspace's schema and settings) in lowdb:
// one file written atomically (temp file + rename) by lowdb's steno writer, or memory only.
import { Low, Memory } from 'lowdb';
import { JSONFile } from 'lowdb/node';

export class SettingsStore<T extends object> {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(private readonly db: Low<T>) {}

  static async open<T extends object>(file: string | undefined, defaults: T): Promise<SettingsStore<T>> {
    const db = new Low<T>(file ? new JSONFile<T>(file) : new Memory<T>(), structuredClone(defaults));
    await db.read();
    db.data = { ...structuredClone(defaults), ...(db.data ?? {}) };
    return new SettingsStore(db);
  }

  /** The current data; read-only outside `update`. */
  get data(): T { return this.db.data; }

  /** Applies a change and resolves once it is on disk. The change runs synchronously, so
   *  validate before mutating: a throw leaves the data as it was. */
  async update<R>(change: (data: T) => R): Promise<R> {
    const draft = structuredClone(this.db.data);
    const result = change(draft);
    this.db.data = draft;
    const write = this.queue.then(() => this.db.write());
    this.queue = write.catch(() => undefined);
    await write;
    return result;
  }

  /** Replaces the whole content (restore, import). */
  async replace(data: T): Promise<void> {
    await this.update((d) => {
      for (const key of Object.keys(d)) delete (d as Record<string, unknown>)[key];
      Object.assign(d, structuredClone(data));
    });
  }

  async flush(): Promise<void> { await this.queue; }
}

// Sections that run one after another per key, within this process: a section waits for the one
// before it on the same key, sections on other keys go on. A key is forgotten once its last
// section ends, so the map holds only keys in use. Both drivers' `exclusive` build on it.
export class KeyedSections {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T> | T): Promise<T> {
    const before = this.tails.get(key);
    let release!: () => void;
    const mine = new Promise<void>((resolve) => { release = resolve; });
    const tail = before ? before.then(() => mine) : mine;
    this.tails.set(key, tail);
    try {
      if (before) await before;
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

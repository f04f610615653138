// All-or-nothing changes to many files of one workspace (import, snapshot restore, reset),
// across kill -9, through a journal in `<workspace>/.swap/`:
//   1. every new content is written inside `.swap/` (the live files are not touched yet);
//   2. `.swap/journal.json` is written atomically: the commit point;
//   3. each entry is applied: a new file renamed over the live one, lines appended to a store's
//      file (made its own first when it is shared with a fork: datafile.ts, ownFile), a file
//      removed;
//   4. `.swap/` is removed.
// A crash before 2 leaves the workspace entirely old (the next start removes `.swap/`); a crash
// after 2 leaves a journal that the next start completes before anything is loaded, so the
// workspace is entirely new. Replaying is safe: renames whose source is gone are done, and the
// appended lines are whole document versions and deletions, which give the same result twice.
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import * as disk from '../disk.js';
import { toStorageError } from '../errors.js';
import { ownFile } from './datafile.js';

export type SwapEntry =
  | { kind: 'rewrite'; target: string; source: string }
  | { kind: 'append'; target: string; source: string }
  | { kind: 'remove'; target: string };

const JOURNAL = 'journal.json';

/** Builds and commits one swap of the workspace folder `dir`. */
export class Swap {
  private readonly entries: SwapEntry[] = [];
  private n = 0;

  private constructor(readonly dir: string, private readonly folder: string) {}

  /** Starts a swap (removing anything an earlier, uncommitted one left). */
  static async begin(dir: string): Promise<Swap> {
    const folder = join(dir, '.swap');
    await guard(folder, async () => {
      await disk.remove(folder, true);
      await disk.mkdir(folder);
    });
    return new Swap(dir, folder);
  }

  /** `target` (an absolute path under the workspace folder) will hold exactly `data`. */
  async rewrite(target: string, data: string | Buffer): Promise<void> {
    const source = `${++this.n}.new`;
    await guard(target, () => disk.writeFile(join(this.folder, source), data));
    this.entries.push({ kind: 'rewrite', target: this.rel(target), source });
  }

  /** `target` will hold a copy of the file `from`. */
  async copy(target: string, from: string): Promise<void> {
    const source = `${++this.n}.new`;
    await guard(target, () => disk.copyFile(from, join(this.folder, source)));
    this.entries.push({ kind: 'rewrite', target: this.rel(target), source });
  }

  /** `text` (whole lines) will be appended to `target`. */
  async append(target: string, text: string): Promise<void> {
    if (!text) return;
    const source = `${++this.n}.add`;
    await guard(target, () => disk.writeFile(join(this.folder, source), text));
    this.entries.push({ kind: 'append', target: this.rel(target), source });
  }

  remove(target: string): void { this.entries.push({ kind: 'remove', target: this.rel(target) }); }

  get size(): number { return this.entries.length; }

  /** Commits (the journal) and applies the entries. Before the commit, a failure leaves every
   *  live file as it was (and `.swap/` removed); after it, the swap is done, now or at the next
   *  start. */
  async commit(): Promise<void> {
    disk.crashPoint('swap:written');
    try {
      await disk.writeAtomic(join(this.folder, JOURNAL), JSON.stringify(this.entries));
      await disk.syncDir(this.folder);
    } catch (err) {
      await disk.remove(this.folder, true).catch(() => undefined);
      throw toStorageError(err, join(this.folder, JOURNAL));
    }
    disk.crashPoint('swap:committed');
    await guard(this.dir, () => applyJournal(this.dir, this.entries));
  }

  /** Drops an uncommitted swap. */
  async abandon(): Promise<void> { await disk.remove(this.folder, true).catch(() => undefined); }

  private rel(target: string): string {
    const rel = relative(this.dir, target);
    if (rel.startsWith('..') || rel === '') throw new Error(`swap target ${target} is outside ${this.dir}`);
    return rel.split(sep).join('/');
  }
}

async function guard<T>(path: string, op: () => Promise<T>): Promise<T> {
  try { return await op(); } catch (err) { throw toStorageError(err, path); }
}

async function applyJournal(dir: string, entries: SwapEntry[]): Promise<void> {
  const folder = join(dir, '.swap');
  for (const e of entries) {
    const target = join(dir, ...e.target.split('/'));
    if (e.kind === 'remove') await disk.remove(target);
    else {
      const source = join(folder, e.source);
      const exists = await stat(source).then(() => true, () => false);
      if (!exists) continue; // renamed on an earlier run
      await disk.mkdir(dirname(target));
      if (e.kind === 'rewrite') await disk.rename(source, target);
      else {
        // A store file shared with a fork (hard links) gets an inode of its own first, so the
        // fork's file stays as it was. A new line first: the target may end in a line cut short
        // by the crash being recovered.
        await ownFile(target);
        await disk.append(target, `\n${await readFile(source, 'utf8')}`);
      }
    }
    disk.crashPoint('swap:applying');
  }
  await disk.syncDir(dir);
  await disk.remove(folder, true);
}

/** At a workspace's start, before anything is loaded: completes a committed swap, removes an
 *  uncommitted one. */
export async function recoverSwap(dir: string): Promise<'none' | 'completed' | 'discarded'> {
  const folder = join(dir, '.swap');
  if (!(await stat(folder).then(() => true, () => false))) return 'none';
  let entries: SwapEntry[] | undefined;
  try {
    entries = JSON.parse(await readFile(join(folder, JOURNAL), 'utf8')) as SwapEntry[];
  } catch {
    entries = undefined;
  }
  if (!entries) {
    await disk.remove(folder, true);
    return 'discarded';
  }
  await applyJournal(dir, entries);
  return 'completed';
}

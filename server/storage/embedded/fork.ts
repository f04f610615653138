// Forking a workspace on the embedded stores: the new workspace's stores are filled from the
// source's (one moment of it) or from a snapshot's documents, without an export and an import.
// The copies share the documents (never mutated once stored) and the indexes (copied by the
// first of the two stores to write: doc-store.ts); on disk each store's file is a hard link of
// the source's (made its own by the first of the two to append: datafile.ts, ownFile), or a
// copy where the file system has no hard links, and the copy starts loaded.
import { copyFile, stat, writeFile } from 'node:fs/promises';
import { constants as fsConstants } from 'node:fs';
import { DocStore, type Doc } from './doc-store.js';
import { compactText } from './datafile.js';
import * as disk from '../disk.js';
import { checkStoreName, type WorkspaceSettings } from '../workspace.js';
import type { EmbeddedStores } from './stores.js';

/** Where a hard link cannot be made (a file system without them, a file with too many names):
 *  the store file is copied instead. */
const NO_LINK = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK', 'EXDEV', 'ENOSYS', 'EACCES']);

/** Gives the copy `to` the content of the store file `from`: a second name of the same file
 *  (`linked`), else a copy; 0 bytes and no file when the store has never written one. */
async function shareFile(from: string, to: string): Promise<{ bytes: number; linked: boolean }> {
  try {
    await disk.link(from, to);
    return { bytes: (await stat(to)).size, linked: true };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (code === 'ENOENT') return { bytes: 0, linked: false }; // never written: its index lines are in the header
    if (!NO_LINK.has(code)) throw err;
  }
  try {
    await copyFile(from, to, fsConstants.COPYFILE_FICLONE);
    return { bytes: (await stat(to)).size, linked: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { bytes: 0, linked: false };
    throw err;
  }
}

/** Copies the stores of `source` (all but `skip`) into `target`, a new embedded workspace,
 *  as one moment of the source: the copies share the source's documents and indexes; on disk
 *  every store's write queue is held while its file is linked (or copied), and the copy starts
 *  loaded. Resolves to the settings of that same moment. */
export async function copyStores(source: EmbeddedStores, target: EmbeddedStores, skip: ReadonlySet<string>): Promise<WorkspaceSettings> {
  const names = (await source.storeNames()).filter((n) => !skip.has(n));
  const stores = await Promise.all(names.map((n) => source.docStore(n)));
  const copy = async () => {
    // One synchronous step: every store and the settings as they are at this instant.
    const sources = stores.map((s) => s.copySource());
    const settings = structuredClone(source.ws.settings.data);
    const files = await Promise.all(names.map(async (name, i) => {
      const from = source.fileOf(name);
      const to = target.fileOf(name);
      if (!from || !to) return { bytes: 0, linked: false };
      const file = await shareFile(from, to);
      if (file.linked) stores[i].fileLinked();
      return file;
    }));
    return { sources, settings, files };
  };
  // On disk: with every write queue held (sorted order, as swaps take them), so that each file
  // matches its store in memory. In memory nothing is written: the copy is one instant anyway.
  const held = (i: number): Promise<Awaited<ReturnType<typeof copy>>> =>
    (source.dir && i < stores.length ? stores[i].holdWrites(() => held(i + 1)) : copy());
  const { sources, settings, files } = await held(0);
  disk.crashPoint('fork:stores'); // kill -9 tests: the files are in the fork's folder, nothing else is
  for (const [i, name] of names.entries()) {
    target.adoptStore(name, await DocStore.fromCopy(sources[i], { filename: target.fileOf(name), bytes: files[i].bytes, linked: files[i].linked, compactEvery: target.compactEvery }));
  }
  return settings;
}

/** Fills `target`, a new embedded workspace, with `stores` (a snapshot's documents, never
 *  mutated): in memory they are shared, on disk each store's file is written first. */
export async function fillStores(target: EmbeddedStores, stores: ReadonlyMap<string, Doc[]>): Promise<void> {
  for (const [name, docs] of stores) {
    checkStoreName(name);
    const specs = [{ fieldName: 'createdAt', unique: false, sparse: false }];
    const file = target.fileOf(name);
    let bytes = 0;
    if (file) {
      const text = compactText(docs, specs);
      await writeFile(file, text, { mode: 0o600 });
      bytes = Buffer.byteLength(text);
    }
    target.adoptStore(name, await DocStore.fromCopy({ docs: docs.slice(), specs, header: '' }, { filename: file, bytes, compactEvery: target.compactEvery }));
  }
}

// Forking a workspace on the embedded stores: the new workspace's stores are filled from the
// source's (one moment of it) or from a snapshot's documents, without an export and an import.
// In memory the copies share the documents (never mutated once stored); on disk each store's
// file is copied (a reflink where the file system has them) and the copy starts loaded.
import { copyFile, stat, writeFile } from 'node:fs/promises';
import { constants as fsConstants } from 'node:fs';
import { DocStore, type Doc } from './doc-store.js';
import { compactText } from './datafile.js';
import type { Workspace, WorkspaceSettings } from '../workspace.js';

/** Copies the stores of `source` (all but `skip`) into `target`, a new embedded workspace,
 *  as one moment of the source: in memory the copies share the documents (never mutated once
 *  stored) and build only their indexes; on disk every store's write queue is held while its
 *  file is copied (a reflink where the file system has them), and the copy starts loaded.
 *  Resolves to the settings of that same moment. */
export async function copyStores(source: Workspace, target: Workspace, skip: ReadonlySet<string>): Promise<WorkspaceSettings> {
  const names = (await source.storeNames()).filter((n) => !skip.has(n));
  const stores = await Promise.all(names.map((n) => source.docStore(n)));
  const copy = async () => {
    // One synchronous step: every store and the settings as they are at this instant.
    const sources = stores.map((s) => s.copySource());
    const settings = structuredClone(source.settings.data);
    const bytes: number[] = [];
    for (const name of names) {
      const from = source.fileOf(name);
      const to = target.fileOf(name);
      if (!from || !to) { bytes.push(0); continue; }
      try {
        await copyFile(from, to, fsConstants.COPYFILE_FICLONE);
        bytes.push((await stat(to)).size);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        bytes.push(0); // a store never written: no file yet (its index lines are in the header)
      }
    }
    return { sources, settings, bytes };
  };
  // On disk: with every write queue held (sorted order, as swaps take them), so that each file
  // matches its store in memory. In memory nothing is written: the copy is one instant anyway.
  const held = (i: number): Promise<Awaited<ReturnType<typeof copy>>> =>
    (source.dir && i < stores.length ? stores[i].holdWrites(() => held(i + 1)) : copy());
  const { sources, settings, bytes } = await held(0);
  for (const [i, name] of names.entries()) {
    target.adoptStore(name, await DocStore.fromCopy(sources[i], { filename: target.fileOf(name), bytes: bytes[i], compactEvery: target.compactEvery }));
  }
  return settings;
}

/** Fills `target`, a new embedded workspace, with `stores` (a snapshot's documents, never
 *  mutated): in memory they are shared, on disk each store's file is written first. */
export async function fillStores(target: Workspace, stores: ReadonlyMap<string, Doc[]>): Promise<void> {
  for (const [name, docs] of stores) {
    target.checkStoreName(name);
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

// An nedb datafile on disk: one JSON document per line (nedb's format: a later line of an _id
// wins, `$$deleted` removes, `$$indexCreated` / `$$indexRemoved`), read and written here rather
// than by nedb so that every write goes through disk.ts and a failed one leaves no trace:
// - reading: one read into one buffer, decoded once, then one JSON.parse per line (nedb's date
//   reviver only when the file may hold a date); a damaged line (a crash or a full disk
//   mid-append) is dropped, and a complete record glued after a partial one is recovered; more
//   than 10 % damaged lines refuse the load, as nedb;
// - appending: a failed append is cut back to the file's previous length, so a partial line never
//   swallows the next write (and if even that fails, the next append starts on a new line);
// - rewriting (compaction, swaps): the whole content beside the file, flushed, renamed over it;
// - sharing: a fork's store file starts as a hard link of its source's (the same inode, nothing
//   copied); whichever of the two appends first gives its name an inode of its own first
//   (ownFile: copied beside, flushed, renamed over), so the other's file never changes.
import { readFile, rename, rm, stat } from 'node:fs/promises';
import model from '@seald-io/nedb/lib/model.js';
import * as disk from '../disk.js';
import { toStorageError } from '../errors.js';

const CORRUPT_ALERT_THRESHOLD = 0.1;

export type Doc = Record<string, unknown> & { _id?: unknown };
export interface IndexSpec { fieldName: string; unique?: boolean; sparse?: boolean }

export interface ParsedFile {
  /** Live documents, in the order of their first line. */
  docs: Doc[];
  /** The same, by id. */
  byId: Map<unknown, Doc>;
  /** Index definitions still in force. */
  specs: IndexSpec[];
  /** The file holds superseded, deleted, damaged or index-removal lines: worth a rewrite. */
  needsRewrite: boolean;
  /** Its length in bytes. */
  bytes: number;
  /** How many names its inode has (more than 1: shared with a fork or its source). */
  links: number;
  /** Events kept with their writes and not settled yet, by id, in the order of their lines
   *  (kept-events.ts). */
  events: Map<string, Record<string, unknown> & { id: string }>;
}

const serializeDoc = (model as unknown as { serialize(o: unknown): string }).serialize;
export const serialize = (doc: unknown): string => serializeDoc(doc);

/** nedb's model.deserialize: JSON.parse with a reviver that turns `{"$$date": n}` into a Date. */
const deserialize = model.deserialize as (line: string) => unknown;

/** Could this text hold a `$$date` key (also spelt with \\u escapes)? Without one, a plain
 *  JSON.parse gives what nedb's reviver would, without calling it for every value. */
const mayHoldDate = (text: string) => text.includes('$$date') || text.includes('\\u');

/** Parses one line as nedb's model.deserialize does; `revive` false when no date can be there. */
function parseLine(line: string, revive = mayHoldDate(line)): Doc {
  const doc = (revive ? deserialize(line) : JSON.parse(line)) as Doc;
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new Error('not a document');
  return doc;
}

/** A damaged line may be a partial record with a complete one glued after it (an append that
 *  failed half-way, then a successful one): the complete one is kept. Only a line that ends in
 *  a newline can hold such a successor (every append ends with one): a torn last line without
 *  it is the partial write alone, and a complete object inside it is nested data (an event's
 *  `data`, a deleted document), not a line to revive. */
function recoverTail(line: string): Doc | undefined {
  for (let i = line.indexOf('{"', 1); i !== -1; i = line.indexOf('{"', i + 1)) {
    try { return parseLine(line.slice(i)); } catch { /* try the next start */ }
  }
  return undefined;
}

/** Reads a datafile; a missing one is empty. A `file~` beside it (a rewrite cut short) is
 *  finished (no file: the rewrite had completed its copy) or discarded (the file is whole). */
export async function readDatafile(filename: string): Promise<ParsedFile> {
  const temp = `${filename}~`;
  // null: no such file; undefined: the stat failed otherwise (the read below says why).
  const [fileStat, hasTemp] = await Promise.all([
    stat(filename).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? null : undefined)),
    stat(temp).then(() => true, () => false),
  ]);
  const hasFile = fileStat !== null;
  if (!hasFile && !hasTemp) return { docs: [], byId: new Map(), specs: [], needsRewrite: false, bytes: 0, links: 1, events: new Map() }; // never written
  if (!hasFile && hasTemp) await rename(temp, filename);
  else if (hasTemp) await rm(temp, { force: true }).catch(() => undefined);
  // One buffer decoded once: readFile(file, 'utf8') decodes 512 KiB chunks into a rope that the
  // first indexOf flattens again (about twice the time for 100,000 records).
  const buffer = await readFile(filename).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return Buffer.alloc(0);
    throw err;
  });
  const raw = buffer.toString('utf8');
  // Asked of the whole file first (a file without dates is the rule), then of each line.
  const revive = mayHoldDate(raw);

  const byId = new Map<unknown, Doc>();
  const specs = new Map<string, IndexSpec>();
  const events = new Map<string, Record<string, unknown> & { id: string }>();
  let lastDoc: Doc | undefined;
  let lines = 0, corrupt = 0, docLines = 0, indexLines = 0, removedIndexes = 0;
  const take = (doc: Doc) => {
    if (doc._id) {
      docLines++;
      lastDoc = doc.$$deleted === true ? undefined : doc;
      if (doc.$$deleted === true) byId.delete(doc._id);
      else byId.set(doc._id, doc); // a later line wins, in the first line's place (as nedb)
    } else if (doc.$$event && typeof (doc.$$event as { id?: unknown }).id === 'string') {
      // An event kept with its write: its data is the document line just before (`$$doc`).
      const event = doc.$$event as Record<string, unknown> & { id: string };
      if (doc.$$doc === true) { if (lastDoc) events.set(event.id, { ...event, data: lastDoc }); } else events.set(event.id, event);
    } else if (Array.isArray(doc.$$settled)) {
      for (const id of doc.$$settled) events.delete(id as string);
    } else if ((doc.$$indexCreated as IndexSpec | undefined)?.fieldName != null) {
      indexLines++;
      const spec = doc.$$indexCreated as IndexSpec;
      specs.set(spec.fieldName, spec);
    } else if (typeof doc.$$indexRemoved === 'string') {
      removedIndexes++;
      specs.delete(doc.$$indexRemoved);
    }
  };
  let start = 0;
  while (start < raw.length) {
    let end = raw.indexOf('\n', start);
    if (end === -1) end = raw.length;
    const line = raw.slice(start, end);
    start = end + 1;
    if (line === '') continue;
    lines++;
    try {
      take(parseLine(line, revive && mayHoldDate(line)));
    } catch {
      corrupt++;
      lastDoc = undefined;
      const tail = end < raw.length ? recoverTail(line) : undefined;
      if (tail) take(tail);
    }
  }
  if (lines > 0 && corrupt / lines > CORRUPT_ALERT_THRESHOLD) {
    throw new Error(`${Math.floor((100 * corrupt) / lines)}% of the lines of ${filename} are corrupt (more than 10 %): refusing to load it, to avoid losing data. Restore the file from a backup or remove the damaged lines.`);
  }
  const docs = [...byId.values()];
  const needsRewrite = corrupt > 0 || docLines !== docs.length || removedIndexes > 0 || indexLines !== specs.size
    || (raw.length > 0 && !raw.endsWith('\n'));
  return { docs, byId, specs: [...specs.values()], needsRewrite, bytes: buffer.length, links: fileStat?.nlink ?? 1, events };
}

/** Gives `path` an inode of its own when another name shares it (a fork's store file and its
 *  source's, hard links of one file until one of them writes): the content copied beside as
 *  `path~` (a clone where the file system has them), flushed, and renamed over `path`; the
 *  other name keeps the old inode, untouched. A crash in between leaves `path` whole (and maybe
 *  a `path~` that the next load removes). A missing file or one of a single name: nothing. */
export async function ownFile(path: string): Promise<void> {
  const st = await stat(path).catch((err: NodeJS.ErrnoException) => { if (err.code === 'ENOENT') return undefined; throw err; });
  if (!st || st.nlink <= 1) return;
  const temp = `${path}~`;
  try {
    await disk.copyFlushed(path, temp);
    await disk.rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw err;
  }
}

/** The lines of a compact file holding `docs` and `indexes` (as nedb's compaction writes it). */
export function compactText(docs: Iterable<unknown>, indexes: IndexSpec[]): string {
  const parts: string[] = [];
  for (const d of docs) parts.push(serialize(d));
  for (const i of indexes) parts.push(serialize({ $$indexCreated: { fieldName: i.fieldName, unique: !!i.unique, sparse: !!i.sparse } }));
  return parts.length ? parts.join('\n') + '\n' : '';
}

/** The append-only file of one store. */
export class DataFile {
  /** Length of the file as this process last left it whole. */
  private size: number;
  /** An undo failed: the file may end in a partial line, so the next append starts a new one. */
  private broken = false;

  /** The file may share its inode with another store's (see ownFile): checked, and if so made
   *  this store's own, before the next append. */
  private linked: boolean;

  constructor(readonly path: string, bytes: number, linked = false) { this.size = bytes; this.linked = linked; }

  /** The file now has another name (a fork's store file was linked to it, or it to a source's). */
  markLinked(): void { this.linked = true; }

  /** Does the file (maybe) share its inode with another store's? */
  get isLinked(): boolean { return this.linked; }

  /** Appends whole lines; on failure the file is as before and the error is a storage error. */
  async append(text: string): Promise<void> {
    const data = this.broken ? `\n${text}` : text;
    if (this.linked) {
      try { await ownFile(this.path); } catch (err) { throw toStorageError(err, this.path); }
      this.linked = false;
    }
    try {
      await disk.append(this.path, data);
    } catch (err) {
      try {
        await disk.truncate(this.path, this.size);
      } catch (undo) {
        if ((undo as NodeJS.ErrnoException).code !== 'ENOENT') this.broken = true;
      }
      throw toStorageError(err, this.path);
    }
    this.size += Buffer.byteLength(data);
    this.broken = false;
  }

  /** Replaces the whole file (crash-safe); on failure the old file stays as it was. */
  async rewrite(text: string): Promise<void> {
    try {
      await disk.writeAtomic(this.path, text, 0o644);
    } catch (err) {
      throw toStorageError(err, this.path);
    }
    this.size = Buffer.byteLength(text);
    this.broken = false;
    this.linked = false; // a new inode, this store's alone
  }

  /** Its length in bytes. */
  get bytes(): number { return this.size; }

  /** The file now holds `bytes` (after it was swapped in from elsewhere: renamed over, or
   *  appended to once made its own, swap.ts). */
  reset(bytes: number): void { this.size = bytes; this.broken = false; this.linked = false; }
}

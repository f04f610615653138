// File storage rules without HTTP: where a workspace's bytes live (by id only, never by the
// client's name), the `files` store, creating and deleting file objects with their events, and
// sweeping bytes that no file object points to any more.
import { mkdir, mkdtemp, readdir, link, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { diskFailure } from '../../core/errors.js';
import { copyFile, rename } from '../../storage/disk.js';
import type { AppContext } from '../context.js';
import { newEventId, type Actor, type BusEvent } from '../../core/bus.js';
import { isValidId, newId } from '../../core/ids.js';
import type { Doc } from '../../storage/query.js';
import type { Store } from '../../storage/store.js';
import type { Workspace } from '../../storage/workspace.js';
import { ApiError } from '../../core/errors.js';

/** A file object as stored (the `url` is added per request: it depends on the address used). */
export interface FileDoc extends Doc {
  name: string;
  size: number;
  type: string;
  _owner: string | null;
  createdAt: string;
  updatedAt: string;
}

export type FileObject = FileDoc & { url: string };

/** Where one workspace keeps its bytes. */
export interface FileArea {
  /** The workspace folder, or a private temporary folder for an in-memory workspace. */
  root: string;
  /** Finished files, one per id: `<root>/files/<id>`. */
  files: string;
  /** Simple uploads being received (renamed into `files` once complete). */
  incoming: string;
  /** Unfinished tus uploads (`<id>` and `<id>.json`). */
  tus: string;
  /** True when `root` is a temporary folder to remove with the workspace. */
  temporary: boolean;
}

export interface NewFile {
  id?: string;
  name: string;
  type: string;
  size: number;
  owner: string | null;
  /** The complete bytes; moved (or linked, for tus) into place. */
  source: string;
  /** `rename` moves the source; `link` leaves it for its owner (tus) to remove. */
  mode: 'rename' | 'link';
}

/** `{base_url}/app/{app_id}/storage/{_id}/download`; apiBase is `{base_url}`. */
export function fileObject(doc: FileDoc | Doc, wsId: string, apiBase: string): FileObject {
  return { ...(doc as FileDoc), url: `${apiBase}/app/${encodeURIComponent(wsId)}/storage/${encodeURIComponent(doc._id)}/download` };
}

/** A strong validator: a file's bytes never change under its id. */
export function etagOf(doc: FileDoc): string {
  return `"${doc._id}-${doc.size.toString(36)}-${Date.parse(doc.createdAt).toString(36)}"`;
}

/** The event of a file write, made before the write so that a driver with an outbox stores it
 *  with the write (its id and time are those published). */
function fileEvent(ws: Workspace, type: 'file.uploaded' | 'file.deleted', file: FileObject, actor: Actor | undefined): BusEvent {
  return { id: newEventId(), type, app: ws.id, timestamp: ws.nowIso(), data: file as unknown as Record<string, unknown>, ...(actor ? { actor } : {}) };
}

/** The one storage service of a server. */
export function storageOf(ctx: AppContext): StorageService {
  return ctx.state.storage.service ??= new StorageService(ctx);
}

export class StorageService {
  private areas = new Map<string, Promise<FileArea>>();
  /** Ids whose bytes are in place but whose file object is not stored yet (the sweep spares them). */
  private pending = new Set<string>();

  constructor(readonly ctx: AppContext) {}

  /** The workspace's folders, created on first use. */
  area(ws: Workspace): Promise<FileArea> {
    let area = this.areas.get(ws.id);
    if (!area) {
      area = openArea(ws);
      area.catch(() => this.areas.delete(ws.id));
      this.areas.set(ws.id, area);
    }
    return area;
  }

  store(ws: Workspace): Promise<Store> { return ws.store('files'); }

  async get(ws: Workspace, id: string): Promise<FileDoc | undefined> {
    if (!isValidId(id)) return undefined;
    return (await (await this.store(ws)).get(id)) as FileDoc | undefined;
  }

  async bytesPath(ws: Workspace, id: string): Promise<string> {
    if (!isValidId(id)) throw new Error('invalid file id');
    return join((await this.area(ws)).files, id);
  }

  /** Moves complete bytes into place, stores the file object and publishes `file.uploaded`. */
  async create(ws: Workspace, input: NewFile, actor: Actor | undefined, apiBase: string): Promise<FileObject> {
    const id = input.id ?? newId();
    if (!isValidId(id)) throw new Error('invalid file id');
    const target = await this.bytesPath(ws, id);
    const key = `${ws.id}/${id}`;
    this.pending.add(key);
    try {
      try {
        if (input.mode === 'rename') await rename(input.source, target);
        else await link(input.source, target).catch(async (err: NodeJS.ErrnoException) => {
          if (err.code === 'EEXIST') await rm(target, { force: true }).then(() => link(input.source, target));
          else await copyFile(input.source, target); // another file system: copy instead
        });
      } catch (err) {
        // A files folder that cannot be written answers as every other write (503 / 507).
        throw diskFailure(err, dirname(target), true) ?? err;
      }
      const now = ws.nowIso();
      const doc: FileDoc = { _id: id, name: input.name, size: input.size, type: input.type, _owner: input.owner, createdAt: now, updatedAt: now };
      // The event is made before the write: a driver with an outbox stores it with the write.
      const event = fileEvent(ws, 'file.uploaded', fileObject(doc, ws.id, apiBase), actor);
      let stored: FileDoc;
      try {
        stored = await (await this.store(ws)).insert(doc, { event }) as FileDoc;
      } catch (err) {
        await rm(target, { force: true });
        throw err;
      }
      const file = fileObject(stored, ws.id, apiBase);
      this.ctx.bus.publish({ ...event, data: file as unknown as Record<string, unknown> });
      return file;
    } finally {
      this.pending.delete(key);
    }
  }

  /** Deletes the file object, then its bytes, and publishes `file.deleted` with the object as it was. */
  /** Deletes a file for `caller`: only its owner or an admin may (403 otherwise). */
  async remove(ws: Workspace, doc: FileDoc, caller: { userId: string; isAdmin: boolean }, actor: Actor | undefined, apiBase: string): Promise<void> {
    if (!caller.isAdmin && doc._owner !== caller.userId) throw ApiError.forbidden('Only the owner of a file or an admin may delete it');
    const event = fileEvent(ws, 'file.deleted', fileObject(doc, ws.id, apiBase), actor);
    const removed = await (await this.store(ws)).remove(doc._id, { event });
    await rm(await this.bytesPath(ws, doc._id), { force: true });
    if (!removed) return;
    this.ctx.bus.publish(event);
  }

  /** Removes bytes that no file object points to (after a reset, restore or import). */
  async sweepOrphans(ws: Workspace): Promise<number> {
    if (!ws.dir && !this.areas.has(ws.id)) return 0; // an in-memory workspace that never stored a file
    const area = await this.area(ws);
    const store = await this.store(ws);
    let removed = 0;
    for (const name of await readdir(area.files).catch(() => [] as string[])) {
      // Pending asked before and after the lookup: an upload that finished meanwhile is kept.
      if (this.pending.has(`${ws.id}/${name}`) || (await store.get(name)) || this.pending.has(`${ws.id}/${name}`)) continue;
      await rm(join(area.files, name), { force: true, recursive: true });
      removed++;
    }
    return removed;
  }

  /** Removes simple uploads left half-received by a killed server (`uploads/incoming/*.part`)
   *  of a workspace on disk, without opening its file area: one folder listing, nothing when the
   *  workspace has no incoming folder. Run at start, before requests are accepted. */
  async sweepIncoming(ws: Workspace): Promise<number> {
    if (!ws.dir || this.areas.has(ws.id)) return 0; // opening the area empties the folder anyway
    const dir = join(ws.dir, 'uploads', 'incoming');
    const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.part'));
    await Promise.all(names.map((n) => rm(join(dir, n), { force: true })));
    return names.length;
  }

  /** Forgets a workspace being closed (deleted, or the server stopping) and removes its temporary
   *  folder; a data folder stays (and goes with the workspace on deletion). */
  async dropWorkspace(ws: Workspace): Promise<void> {
    const area = this.areas.get(ws.id);
    this.areas.delete(ws.id);
    const a = await area?.catch(() => undefined);
    if (a?.temporary) await rm(a.root, { recursive: true, force: true });
  }
}

async function openArea(ws: Workspace): Promise<FileArea> {
  const temporary = ws.dir === undefined;
  // An in-memory workspace keeps its bytes in a private temporary folder (mode 0700).
  const root = ws.dir ?? await mkdtemp(join(tmpdir(), 'homebase-files-'));
  const area: FileArea = {
    root, temporary,
    files: ws.filesDir ?? join(root, 'files'),
    incoming: join(root, 'uploads', 'incoming'),
    tus: join(root, 'uploads', 'tus'),
  };
  try {
    // Simple uploads cut off by a crash are never resumed: start with an empty incoming folder.
    await rm(area.incoming, { recursive: true, force: true });
    for (const dir of [area.files, area.incoming, area.tus]) await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw diskFailure(err, root, true) ?? err;
  }
  return area;
}

/** Does a path exist (used to find tus folders of workspaces not opened yet)? */
export async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}

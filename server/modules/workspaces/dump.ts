// Export and import of a whole workspace as one JSON document (see dump-format.ts). Export
// reads a quiet moment of the workspace; import validates the whole dump first, then swaps it
// in with the workspace busy, so a bad dump changes nothing.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import { newId } from '../../core/ids.js';
import { ApiError } from '../../core/errors.js';
import type { Doc } from '../../storage/query.js';
import type { Workspace, WorkspaceSettings } from '../../storage/workspace.js';
import type { CollectionDef } from '../../shared/models.js';
import { hashPassword, normalizeEmail } from '../users/index.js';
import { publicWebhook, storedFilter } from '../webhooks/index.js';
import { publicCredential } from '../credentials/index.js';
import { seal } from '../../core/crypto.js';
import { applyState, exclusive, isCollectionStore, whileBusy, type WorkspaceState } from './state.js';
import { filesDirOf, type FileSet } from './files.js';
import { DUMP_FORMAT, DUMP_VERSION, OPERATIONAL_STORES, SECTION_STORES, type Dump } from './dump-format.js';
import { validateDump } from './dump-validate.js';

export { validateDump };

/** The workspace as a dump. Secret values and webhook signing secrets never leave; users keep
 *  their password hashes (the one place a hash leaves the server: a console export). */
export function exportWorkspace(ctx: AppContext, ws: Workspace): Promise<Dump> {
  return exclusive(ctx, ws, async () => {
    const settings = ws.settings.data;
    const dump: Required<Dump> = {
      format: DUMP_FORMAT, version: DUMP_VERSION, exportedAt: ws.nowIso(),
      workspace: { _id: ws.id, name: settings.name, ...(settings.firstAdminId ? { firstAdminId: settings.firstAdminId } : {}) },
      schema: { collections: structuredClone(settings.collections) },
      records: {}, users: [], files: [], webhooks: [], scenarios: [], secrets: [], stores: {},
    };
    for (const c of settings.collections) dump.records[c._id] = [];
    const filesDir = await filesDirOf(ctx, ws);
    for (const name of await ws.storeNames()) {
      if (OPERATIONAL_STORES.has(name)) continue;
      const all = await (await ws.store(name)).all();
      if (isCollectionStore(name)) {
        const cid = name.slice('collections/'.length);
        if (dump.records[cid]) dump.records[cid] = all;
      } else if (name === 'users') dump.users = all;
      else if (name === 'webhooks') dump.webhooks = all.map((d) => publicWebhook(d) as unknown as Doc);
      else if (name === 'credentials') dump.secrets = all.map((d) => publicCredential(d) as unknown as Doc);
      else if (name === 'scenarios') dump.scenarios = all;
      else if (name === 'files') {
        for (const f of all) {
          const bytes = await readFile(join(filesDir, f._id)).catch(() => Buffer.alloc(0));
          dump.files.push({ ...f, size: bytes.length, content: bytes.toString('base64') });
        }
      } else if (all.length) dump.stores[name] = all;
    }
    return dump;
  });
}

export interface ImportSummary { collections: number; records: number; users: number; files: number; webhooks: number; scenarios: number; secrets: number }

/** Validates `raw` (422 naming the first problem, nothing changed) and replaces the
 *  workspace's content with it. The workspace's first admin is kept unless the dump has a user
 *  with the same id or email, so the console and a test suite keep their admin. */
export interface ImportOptions {
  /** When the result would have no administrator: an admin to add (the CLI's import makes one
   *  and prints its password). Without it such a dump is refused: nobody could administer the
   *  workspace, and the console could not even mint a token for it. */
  newAdmin?: { email: string; password: string };
}

export async function importWorkspace(ctx: AppContext, ws: Workspace, raw: unknown, options: ImportOptions = {}): Promise<ImportSummary & { addedAdmin?: { email: string; password: string } }> {
  const dump = validateDump(raw);
  // Hashing plain-text seed passwords is slow: done before the workspace turns busy.
  const users: Doc[] = [];
  for (const u of dump.users ?? []) {
    const { password, ...rest } = u as Doc & { password?: string };
    const now = ws.nowIso();
    users.push({
      name: '', role: 'user', createdAt: now, updatedAt: now, ...rest,
      email: normalizeEmail(String(u.email)),
      ...(password !== undefined && u.passwordHash === undefined ? { passwordHash: await hashPassword(password, ctx.config.bcryptCost) } : {}),
    });
  }
  let addedAdmin: ImportOptions['newAdmin'];
  const adminHash = options.newAdmin ? await hashPassword(options.newAdmin.password, ctx.config.bcryptCost) : undefined;
  return exclusive(ctx, ws, () => whileBusy(ctx, ws, async () => {
    const adminId = ws.settings.data.firstAdminId;
    const currentAdmin = adminId ? await (await ws.store('users')).get(adminId) : undefined;
    const state = buildState(ws, dump, users, currentAdmin);
    const stateUsers = state.stores.get('users')!;
    if (!stateUsers.some((u) => u.role === 'admin')) {
      if (!options.newAdmin) {
        throw ApiError.invalidField('users', 'invalid', "'users' leaves the workspace without an administrator: give one user \"role\": \"admin\" (and a \"password\"), or keep the workspace's admin out of the dump");
      }
      const email = normalizeEmail(options.newAdmin.email);
      if (stateUsers.some((u) => u.email === email)) {
        throw ApiError.invalidField('users', 'invalid', `'users' has no administrator, and '${email}' (the admin Homebase would add) is a user of the dump: give that user "role": "admin", or set HOMEBASE_ADMIN_EMAIL to another address`);
      }
      const now = ws.nowIso();
      const admin = { _id: newId(), email, name: 'Admin', role: 'admin', passwordHash: adminHash!, createdAt: now, updatedAt: now };
      stateUsers.push(admin);
      state.settings.firstAdminId = admin._id;
      addedAdmin = { email, password: options.newAdmin.password };
    }
    await applyState(ctx, ws, state);
    const count = (name: string) => state.stores.get(name)?.length ?? 0;
    let records = 0;
    for (const [name, docs] of state.stores) if (isCollectionStore(name)) records += docs.length;
    return {
      collections: state.settings.collections.length, records, users: count('users'), files: count('files'),
      webhooks: count('webhooks'), scenarios: count('scenarios'), secrets: count('credentials'),
      ...(addedAdmin ? { addedAdmin } : {}),
    };
  }));
}

function buildState(ws: Workspace, dump: Dump, dumpUsers: Doc[], currentAdmin: Doc | undefined): WorkspaceState {
  const now = ws.nowIso();
  const stamp = <T extends object>(d: T) => ({ createdAt: now, updatedAt: now, ...d });
  // The setting comes completed by validateDump; a view's or index's `fields` may be given as
  // "a,b" (as the API accepts them) and is stored as a list.
  const list = (v: unknown) => (typeof v === 'string' ? v.split(',').map((x) => x.trim()).filter((x) => x !== '') : v);
  const collections: CollectionDef[] = (dump.schema?.collections ?? []).map((c) => stamp({
    ...c, name: c.name ?? c._id,
    fields: (c.fields ?? []).map((f) => stamp({ ...f, name: f.name ?? f._id })),
    views: (c.views ?? []).map((v) => stamp({ ...v, name: v.name ?? v._id, filter: v.filter ?? {}, ...(v.fields !== undefined ? { fields: list(v.fields) } : {}) })),
    indexes: (c.indexes ?? []).map((i) => ({ ...i, fields: list(i.fields), createdAt: i.createdAt ?? now, unique: !!i.unique })), // an index has no updatedAt
  }) as unknown as CollectionDef);

  // Users: the dump's, plus the current first admin unless the dump replaces it.
  const users = [...dumpUsers];
  let firstAdminId: string | undefined;
  if (currentAdmin && !users.some((u) => u._id === currentAdmin._id || u.email === currentAdmin.email)) {
    users.push(currentAdmin);
    firstAdminId = currentAdmin._id;
  } else {
    const wanted = dump.workspace?.firstAdminId;
    firstAdminId = (users.find((u) => u._id === wanted) ?? users.find((u) => u.role === 'admin'))?._id;
  }

  const settings: WorkspaceSettings = { ...structuredClone(ws.settings.data), collections };
  if (firstAdminId) settings.firstAdminId = firstAdminId; else delete settings.firstAdminId;

  const stores = new Map<string, Doc[]>([['users', users]]);
  for (const c of collections) stores.set(`collections/${c._id}`, (dump.records?.[c._id] ?? []).map(stamp));
  const files: FileSet = new Map();
  stores.set('files', (dump.files ?? []).map(({ content, ...f }) => {
    const data = Buffer.from(content, 'base64');
    files.set(f._id, { data });
    return stamp({ type: 'application/octet-stream', _owner: null, ...f, size: data.length });
  }));
  // A signing secret never leaves the server: an imported webhook gets a new one, unless the
  // dump (a hand-written fixture) gives one, so that a test suite can verify signatures.
  stores.set('webhooks', (dump.webhooks ?? []).map(({ secret, sealedSecret: _old, ...w }) => stamp({
    active: true, name: w._id, ...w,
    ...(w.filter && typeof w.filter === 'object' ? { filter: storedFilter(w.filter as Parameters<typeof storedFilter>[0]) } : {}),
    sealedSecret: seal(ws, typeof secret === 'string' ? secret : `whsec_${randomBytes(32).toString('base64')}`),
  })));
  stores.set('scenarios', (dump.scenarios ?? []).map(stamp));
  // Secrets arrive without a value (it never leaves the server): set it again after an import.
  stores.set('credentials', (dump.secrets ?? []).map((s) => stamp({ type: 'generic', description: '', ...s })));
  for (const [name, docs] of Object.entries(dump.stores ?? {})) if (!OPERATIONAL_STORES.has(name) && !SECTION_STORES.has(name)) stores.set(name, docs);
  return { settings, stores, files };
}

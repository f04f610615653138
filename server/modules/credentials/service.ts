// Secrets (credentials): write-only values, sealed at rest. Only `secretValues` ever opens them,
// for the scenario runner; everything the API returns goes through publicCredential.
import type { Workspace } from '../../storage/workspace.js';
import type { Doc, StoreQuery } from '../../storage/query.js';
import { withIndexes, type Store } from '../../storage/store.js';
import { ApiError } from '../../core/errors.js';
import { UniqueViolationError } from '../../storage/errors.js';
import { newId } from '../../core/ids.js';
import { logger } from '../../core/logger.js';
import { seal, unseal } from '../../core/crypto.js';
import { parseBody } from '../../core/validate.js';
import { SERVER_FIELDS, withoutReadOnly } from '../../core/read-only.js';
import { CredentialChangesBody, NewCredentialBody, ReplaceCredentialBody } from './schemas.js';
import type { ChangeMode } from '../../core/change-mode.js';


export interface Credential {
  _id: string;
  name: string;
  type: string;
  description: string;
  createdAt: string;
  updatedAt: string;
}

interface CredentialDoc extends Credential { sealedValue: string }

export interface NewCredential { name: string; type?: string; description?: string; value: string }
export type CredentialChanges = Partial<NewCredential>;

async function credentialStore(ws: Workspace): Promise<Store> {
  const store = await withIndexes(await ws.store('credentials'), [{ fieldName: 'name', unique: true }]);
  return store;
}

/** The metadata only: never the value, sealed or not. */
export function publicCredential(doc: Doc | Credential): Credential {
  const d = doc as CredentialDoc;
  return { _id: d._id, name: d.name, type: d.type, description: d.description, createdAt: d.createdAt, updatedAt: d.updatedAt };
}

export async function listCredentials(ws: Workspace, q: StoreQuery): Promise<{ data: Credential[]; total: number }> {
  const store = await credentialStore(ws);
  // Projection is applied after the fact so that `fields=` can never reach the sealed value.
  const { data, total } = await store.find({ ...q, fields: undefined });
  const wanted = q.fields;
  return {
    total,
    data: data.map((d) => {
      const pub = publicCredential(d);
      if (!wanted) return pub;
      const out: Record<string, unknown> = { _id: pub._id };
      for (const f of wanted) if (f in pub) out[f] = pub[f as keyof Credential];
      return out as unknown as Credential;
    }),
  };
}

export async function getCredential(ws: Workspace, id: string): Promise<Credential> {
  const doc = await (await credentialStore(ws)).get(id);
  if (!doc) throw ApiError.notFound('Secret', id);
  return publicCredential(doc);
}

/** Creates a secret from a client's body (server-managed fields refused, then checked). */
export async function createCredential(ws: Workspace, body: unknown): Promise<Credential> {
  const input: NewCredential = parseBody(NewCredentialBody, withoutReadOnly(body, SERVER_FIELDS));
  const store = await credentialStore(ws);
  await assertNameFree(store, input.name);
  const now = ws.nowIso();
  const doc: CredentialDoc = {
    _id: newId(), ...credentialFields(input),
    sealedValue: seal(ws, input.value), createdAt: now, updatedAt: now,
  };
  return publicCredential(await insertOrConflict(store, doc, input.name));
}

/** A secret's described part, as a creation or a replacement gives it (with the defaults). */
function credentialFields(input: { name: string; type?: string; description?: string }): Pick<Credential, 'name' | 'type' | 'description'> {
  return { name: input.name, type: input.type ?? 'generic', description: input.description ?? '' };
}

/** A change from a client's body: a partial update (`merge`) or the whole secret (`replace`:
 *  `name` required, `type` and `description` back to their defaults when absent, the value kept
 *  unless a new one is sent). A server-managed field may repeat its current value, never change it. */
export async function updateCredential(ws: Workspace, id: string, body: unknown, mode: ChangeMode = 'merge'): Promise<Credential> {
  const store = await credentialStore(ws);
  // Alone among the changes to this secret: concurrent changes apply one after another.
  return store.exclusive(id, () => applyCredentialUpdate(ws, store, id, body, mode));
}

async function applyCredentialUpdate(ws: Workspace, store: Store, id: string, body: unknown, mode: ChangeMode): Promise<Credential> {
  const current = (await store.get(id)) as CredentialDoc | undefined;
  if (!current) throw ApiError.notFound('Secret', id);
  const given = withoutReadOnly(body, SERVER_FIELDS, publicCredential(current));
  const changes: CredentialChanges = mode === 'replace' ? parseBody(ReplaceCredentialBody, given) : parseBody(CredentialChangesBody, given);
  if (changes.name !== undefined && changes.name !== current.name) await assertNameFree(store, changes.name);
  const next: CredentialDoc = {
    ...current,
    ...(mode === 'replace' ? credentialFields(changes as { name: string }) : {
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.type !== undefined ? { type: changes.type } : {}),
      ...(changes.description !== undefined ? { description: changes.description } : {}),
    }),
    ...(changes.value !== undefined ? { sealedValue: seal(ws, changes.value) } : {}),
    updatedAt: ws.nowIso(),
  };
  try {
    const saved = await store.replace(id, next as unknown as Doc);
    if (!saved) throw ApiError.notFound('Secret', id);
    return publicCredential(saved);
  } catch (err) {
    throw conflictOf(err, changes.name ?? current.name);
  }
}

export async function deleteCredential(ws: Workspace, id: string): Promise<void> {
  const store = await credentialStore(ws);
  const removed = await store.exclusive(id, () => store.remove(id));
  if (!removed) throw ApiError.notFound('Secret', id);
}

/** Names of the workspace's secrets (to validate templates). */
export async function secretNames(ws: Workspace): Promise<Set<string>> {
  return new Set((await (await credentialStore(ws)).all()).map((d) => d.name as string));
}

/** Decrypted values by name. For the scenario runner only: never return these from a route. */
export async function secretValues(ws: Workspace): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const d of (await (await credentialStore(ws)).all()) as unknown as CredentialDoc[]) {
    if (typeof d.sealedValue !== 'string') continue; // imported without a value: set it with PUT
    try {
      out.set(d.name, unseal(ws, d.sealedValue));
    } catch {
      // A value sealed with another key (a dump from elsewhere): unusable, reported by name only.
      logger.warn({ workspace: ws.id, secret: d.name }, 'a secret could not be decrypted with this workspace key');
    }
  }
  return out;
}

async function assertNameFree(store: Store, name: string): Promise<void> {
  if ((await store.findBy('name', name)).length) throw ApiError.conflict(`A secret named '${name}' already exists`, { field: 'name' });
}

async function insertOrConflict(store: Store, doc: CredentialDoc, name: string): Promise<Doc> {
  try {
    return await store.insert(doc as unknown as Doc);
  } catch (err) {
    throw conflictOf(err, name);
  }
}

function conflictOf(err: unknown, name: string): unknown {
  return err instanceof UniqueViolationError ? ApiError.conflict(`A secret named '${name}' already exists`, { field: 'name' }) : err;
}

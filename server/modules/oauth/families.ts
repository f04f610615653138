// Token families of OAuth grants. Each grant (one authorization, or one client_credentials
// token) is a session of the workspace's sessions store, so an OAuth access token is checked
// exactly like a signed-in user's (its session must be live) and ends with it. The session
// carries the OAuth refresh token's hash apart from the v1 one (a v1 /auth/refresh never accepts
// an OAuth refresh token), and the hashes it rotated away: presenting one of those again is a
// reuse, and the whole family (the session) is revoked.
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Workspace } from '../../storage/workspace.js';
import { newId } from '../../core/ids.js';
import { hashToken, revokeSession, sessionsStore, type SessionDoc } from '../auth/index.js';

export interface FamilyDoc extends SessionDoc {
  oauthClient: string;
  oauthScope: string[];
  oauthRefreshHash: string;
  oauthRotated: string[];
}

const ROTATED_KEPT = 50;

export async function startFamily(ws: Workspace, principalId: string, clientId: string, scope: string[], ttlSeconds: number): Promise<FamilyDoc> {
  const now = ws.nowIso();
  const doc: FamilyDoc = {
    _id: newId(), userId: principalId,
    // Not a v1 refresh token: nobody knows the value hashed here.
    refreshHash: hashToken(randomBytes(32).toString('base64url')), rotated: [], revoked: false,
    expiresAt: new Date(ws.now() + ttlSeconds * 1000).toISOString(), createdAt: now, updatedAt: now,
    oauthClient: clientId, oauthScope: scope, oauthRefreshHash: '', oauthRotated: [],
  };
  await (await sessionsStore(ws)).insert(doc);
  return doc;
}

/** `hbo_<family>_<secret>`: the family is found by id in one lookup. */
export function newRefreshTokenFor(familyId: string): string { return `hbo_${familyId}_${randomBytes(32).toString('base64url')}`; }
export function familyOfRefreshToken(token: string): string | undefined {
  return /^hbo_([A-Za-z0-9_-]{1,64})_[A-Za-z0-9_-]{43}$/.exec(token)?.[1];
}

export async function getFamily(ws: Workspace, id: string): Promise<FamilyDoc | undefined> {
  const doc = (await (await sessionsStore(ws)).get(id)) as FamilyDoc | undefined;
  return doc && typeof doc.oauthClient === 'string' && !doc.revoked ? doc : undefined;
}

/** Records the family's current refresh token (after a grant or a rotation) and its expiry. */
export async function setRefreshToken(ws: Workspace, id: string, token: string, ttlSeconds: number): Promise<void> {
  const store = await sessionsStore(ws);
  await store.exclusive(id, async () => {
    const doc = (await store.get(id)) as FamilyDoc | undefined;
    if (!doc) return;
    await store.replace(id, { ...doc, oauthRefreshHash: hashToken(token), expiresAt: new Date(ws.now() + ttlSeconds * 1000).toISOString(), updatedAt: ws.nowIso() });
  });
}

/** The family's state for a presented refresh token: current, reused (already rotated: the
 *  family is revoked here), or unknown/expired. */
export async function checkRefreshToken(ctx: AppContext, ws: Workspace, token: string): Promise<FamilyDoc | undefined> {
  const id = familyOfRefreshToken(token);
  if (!id) return undefined;
  const family = await getFamily(ws, id);
  if (!family) return undefined;
  const hash = hashToken(token);
  if (family.oauthRotated.includes(hash)) { await revokeSession(ctx, ws, id); return undefined; }
  if (family.oauthRefreshHash !== hash) return undefined;
  if (Date.parse(family.expiresAt) <= ws.now()) { await revokeSession(ctx, ws, id); return undefined; }
  return family;
}

/** Rotates a refresh token away (single use). False when it is not the current one any more
 *  (a concurrent refresh took it first: that one is then a reuse, and the family ends). */
export async function rotateAway(ctx: AppContext, ws: Workspace, token: string): Promise<boolean> {
  const id = familyOfRefreshToken(token);
  if (!id) return false;
  const store = await sessionsStore(ws);
  const hash = hashToken(token);
  const done = await store.exclusive(id, async () => {
    const doc = (await store.get(id)) as FamilyDoc | undefined;
    if (!doc || doc.revoked || doc.oauthRefreshHash !== hash) return false;
    await store.replace(id, { ...doc, oauthRefreshHash: '', oauthRotated: [...doc.oauthRotated, hash].slice(-ROTATED_KEPT), updatedAt: ws.nowIso() });
    return true;
  });
  if (!done) await revokeSession(ctx, ws, id);
  return done;
}

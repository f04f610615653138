// Sessions and tokens. An access token is an HS256 JWT (sub, app, role, sid, iat, exp, and
// act for impersonation) signed with the workspace's key; it is valid only while its session
// is. A refresh token is an opaque random string stored as a SHA-256 hash on its session.
import jwt from 'jsonwebtoken';
import { createHash, randomBytes } from 'node:crypto';
import type { Workspace } from '../../storage/workspace.js';
import type { DocStore } from '../../storage/doc-store.js';
import { ApiError } from '../../core/errors.js';
import { newId, nowIso } from '../../core/ids.js';
import { publicUser, type UserDoc } from '../users/repo.js';
import type { User } from '../../shared/models.js';

export interface SessionDoc {
  _id: string;
  userId: string;
  refreshHash: string;
  /** Hashes of refresh tokens already rotated away: presenting one revokes the session. */
  rotated: string[];
  revoked: boolean;
  impersonatedBy?: string;
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
  [key: string]: unknown;
}

export interface TokenClaims { sub: string; app: string; role: string; sid: string; act?: { sub: string } }

export interface LoginResult { token: string; refreshToken: string; user: User }

export interface TokenSettings { tokenTtl: number; refreshTtl: number }

export async function sessionsStore(ws: Workspace): Promise<DocStore> {
  const store = await ws.store('sessions');
  if (!store.hasIndex('userId')) await store.ensureIndex({ fieldName: 'userId' });
  if (!store.hasIndex('refreshHash')) await store.ensureIndex({ fieldName: 'refreshHash' });
  return store;
}

export const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');
export const newRefreshToken = () => `hbr_${randomBytes(32).toString('base64url')}`;

export function signAccessToken(ws: Workspace, claims: TokenClaims, ttlSeconds: number): string {
  return jwt.sign(claims, ws.keys.jwtSecret, { algorithm: 'HS256', expiresIn: ttlSeconds });
}

/** Starts a session for a user and returns the login result. */
export async function createSession(ws: Workspace, user: UserDoc, settings: TokenSettings, impersonatedBy?: string): Promise<LoginResult> {
  const store = await sessionsStore(ws);
  const refreshToken = newRefreshToken();
  const now = nowIso();
  const session: SessionDoc = {
    _id: newId(),
    userId: user._id,
    refreshHash: hashToken(refreshToken),
    rotated: [],
    revoked: false,
    ...(impersonatedBy ? { impersonatedBy } : {}),
    expiresAt: new Date(Date.now() + settings.refreshTtl * 1000).toISOString(),
    createdAt: now,
    updatedAt: now,
  };
  await store.insert(session);
  return { token: accessTokenFor(ws, user, session, settings), refreshToken, user: publicUser(user) };
}

export function accessTokenFor(ws: Workspace, user: UserDoc, session: SessionDoc, settings: TokenSettings): string {
  const claims: TokenClaims = { sub: user._id, app: ws.id, role: user.role, sid: session._id };
  if (session.impersonatedBy) claims.act = { sub: session.impersonatedBy };
  return signAccessToken(ws, claims, settings.tokenTtl);
}

/** Verifies an access token for a workspace: signature (HS256 only), expiry, workspace,
 *  live session and existing user. Every failure is a 401. */
export async function verifyAccessToken(ws: Workspace, token: string): Promise<{ claims: TokenClaims; user: UserDoc; session: SessionDoc }> {
  let claims: TokenClaims;
  try {
    claims = jwt.verify(token, ws.keys.jwtSecret, { algorithms: ['HS256'] }) as TokenClaims;
  } catch (err) {
    const expired = (err as Error).name === 'TokenExpiredError';
    throw ApiError.unauthorized(expired ? 'Access token expired' : 'Invalid access token');
  }
  if (claims.app !== ws.id || typeof claims.sid !== 'string' || typeof claims.sub !== 'string') throw ApiError.unauthorized('Invalid access token');
  const session = (await sessionsStore(ws)).get(claims.sid) as SessionDoc | undefined;
  if (!session || session.revoked || session.userId !== claims.sub) throw ApiError.unauthorized('Session ended; sign in again');
  const user = (await ws.store('users')).get(claims.sub) as UserDoc | undefined;
  if (!user) throw ApiError.unauthorized('User no longer exists');
  return { claims, user, session };
}

/** Revokes sessions of a user (all, or all but one). */
export async function revokeUserSessions(ws: Workspace, userId: string, exceptSessionId?: string): Promise<void> {
  const store = await sessionsStore(ws);
  for (const s of store.findBy('userId', userId) as SessionDoc[]) {
    if (s._id === exceptSessionId || s.revoked) continue;
    await store.replace(s._id, { ...s, revoked: true, updatedAt: nowIso() });
  }
}

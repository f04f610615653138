// Sessions and tokens. An access token is an HS256 JWT (sub, app, role, sid, iat, exp, and
// act for impersonation) signed with the workspace's key; it is valid only while its session
// is. A refresh token is an opaque random string stored as a SHA-256 hash on its session;
// it is single use: each refresh rotates it, and presenting a rotated one ends the session.
import jwt from 'jsonwebtoken';
import { createHash, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Workspace } from '../../storage/workspace.js';
import { getEach, withIndexes, type Store } from '../../storage/store.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { publicUser, type UserDoc } from '../users/index.js';
import type { User } from '../../shared/models.js';
import { sessionsEnded } from './session-ends.js';

export interface SessionDoc {
  _id: string;
  userId: string;
  refreshHash: string;
  /** Hashes of refresh tokens already rotated away (the most recent ones): presenting one ends the session. */
  rotated: string[];
  revoked: boolean;
  impersonatedBy?: string;
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
  [key: string]: unknown;
}

export interface TokenClaims {
  sub: string; app: string; role: string; sid: string; act?: { sub: string };
  /** OAuth access tokens: the granted scopes (space-separated) and the client's id. */
  scope?: string; cid?: string;
}

export interface LoginResult { token: string; refreshToken: string; user: User }

export interface TokenSettings { tokenTtl: number; refreshTtl: number }

/** How many rotated refresh-token hashes a session remembers for reuse detection. An older
 *  token is still refused (it matches nothing), it just no longer ends the session. */
const ROTATED_KEPT = 50;

export async function sessionsStore(ws: Workspace): Promise<Store> {
  return withIndexes(await ws.store('sessions'), [{ fieldName: 'userId' }, { fieldName: 'refreshHash' }, { fieldName: 'rotated' }]);
}

export const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');
export const newRefreshToken = () => `hbr_${randomBytes(32).toString('base64url')}`;

// The signing key as a KeyObject, made once per workspace key: given a string, jsonwebtoken
// first tries to parse it as a PEM public key on every call, which cost more than all the rest
// of a GET request (see docs/performance.md). Same bytes, same HMAC. Not server state: a memo of
// an immutable value derived from the workspace's secret (made again when the secret changes).
const keyObjects = new WeakMap<Workspace, { secret: string; key: KeyObject }>();
function signingKey(ws: Workspace): KeyObject {
  const cached = keyObjects.get(ws);
  if (cached && cached.secret === ws.keys.jwtSecret) return cached.key;
  const key = createSecretKey(Buffer.from(ws.keys.jwtSecret, 'utf8'));
  keyObjects.set(ws, { secret: ws.keys.jwtSecret, key });
  return key;
}

// Tokens whose signature was already checked with a key, with their claims. A hit skips the
// HMAC and the JSON decoding; expiry is checked again on every use, and the session and user
// lookups below still run on every request. Not server state: a memo of a pure function of
// (key, token), held as long as the key object lives.
const VERIFIED_MAX = 10_000;
const verified = new WeakMap<KeyObject, Map<string, Readonly<TokenClaims & { exp?: number }>>>();

function verifySignature(ws: Workspace, token: string): Readonly<TokenClaims> {
  const key = signingKey(ws);
  let tokens = verified.get(key);
  if (!tokens) { tokens = new Map(); verified.set(key, tokens); }
  const hit = tokens.get(token);
  // Expiry is judged by the workspace's clock (it may be set or moved by a test suite).
  const now = ws.now() / 1000;
  if (hit && hit.exp! > now) return hit;
  if (hit) tokens.delete(token); // expired: jwt.verify below says so
  const claims = jwt.verify(token, key, { algorithms: ['HS256'], clockTimestamp: Math.floor(now) }) as TokenClaims & { exp?: unknown; nbf?: unknown };
  if (typeof claims === 'object' && claims !== null && typeof claims.exp === 'number' && claims.nbf === undefined) {
    if (tokens.size >= VERIFIED_MAX) tokens.clear();
    tokens.set(token, Object.freeze(claims) as TokenClaims & { exp: number });
  }
  return claims;
}

/** Signs an access token; `iat` and `exp` are the workspace's time (its clock). */
export function signAccessToken(ws: Workspace, claims: TokenClaims, ttlSeconds: number): string {
  const iat = Math.floor(ws.now() / 1000);
  return jwt.sign({ ...claims, iat }, signingKey(ws), { algorithm: 'HS256', expiresIn: ttlSeconds });
}

const refreshExpiry = (ws: Workspace, settings: TokenSettings) => new Date(ws.now() + settings.refreshTtl * 1000).toISOString();

/** Starts a session for a user and returns the login result. */
export async function createSession(ctx: AppContext, ws: Workspace, user: UserDoc, impersonatedBy?: string): Promise<LoginResult> {
  const settings: TokenSettings = ctx.config;
  const store = await sessionsStore(ws);
  await purgeExpiredSessions(ctx, ws, store, user._id);
  const refreshToken = newRefreshToken();
  const now = ws.nowIso();
  const session: SessionDoc = {
    _id: newId(),
    userId: user._id,
    refreshHash: hashToken(refreshToken),
    rotated: [],
    revoked: false,
    ...(impersonatedBy ? { impersonatedBy } : {}),
    expiresAt: refreshExpiry(ws, settings),
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
 *  live session and existing user. Every failure is a 401. Two in-memory index lookups
 *  after the HMAC: cheap enough for every request. */
export async function verifyAccessToken(ws: Workspace, token: string): Promise<VerifiedToken> {
  const claims = verifiedClaims(ws, token);
  return { claims, ...(await liveSession(ws, claims.sid, claims.sub)) };
}

export interface VerifiedToken { claims: TokenClaims; user: UserDoc; session: SessionDoc }

/** verifyAccessToken without waiting, when the sessions and users stores are open (every
 *  request but the first ones): the same checks in the same order, the same errors; undefined
 *  when a store still has to be opened (the caller then takes verifyAccessToken). */
export function verifyAccessTokenNow(ws: Workspace, token: string): VerifiedToken | undefined {
  const sessions = ws.openStore('sessions');
  const users = ws.openStore('users');
  if (!sessions?.getNow || !users?.getNow) return undefined;
  const claims = verifiedClaims(ws, token);
  // liveSession's rule, with reads that answer at once.
  const live = liveRecords(sessions.getNow(claims.sid) as SessionDoc | undefined, users.getNow(claims.sub) as UserDoc | undefined, claims.sub);
  checkImpersonator(live.session, live.session.impersonatedBy ? users.getNow(live.session.impersonatedBy) as UserDoc | undefined : undefined);
  return { claims, ...live };
}

const SESSION_ENDED = 'Session ended; sign in again';
const USER_GONE = 'User no longer exists';
const IMPERSONATION_ENDED = 'Impersonation ended: its administrator is gone';

/** Signature (HS256 only), expiry and workspace of an access token; 401 otherwise. */
export function verifiedClaims(ws: Workspace, token: string): Readonly<TokenClaims> {
  let claims: Readonly<TokenClaims>;
  try {
    claims = verifySignature(ws, token);
  } catch (err) {
    const expired = (err as Error).name === 'TokenExpiredError';
    throw ApiError.unauthorized(expired ? 'Access token expired' : 'Invalid access token');
  }
  if (typeof claims !== 'object' || claims === null || claims.app !== ws.id || typeof claims.sid !== 'string' || typeof claims.sub !== 'string') {
    throw ApiError.unauthorized('Invalid access token');
  }
  return claims;
}

/** The session check of every signed-in request and of every realtime frame: the session is
 *  live and the user's, the user exists, and an impersonation lasts only while the admin behind
 *  it is still an admin. Every failure is a 401. */
export async function liveSession(ws: Workspace, sessionId: string, userId: string): Promise<{ user: UserDoc; session: SessionDoc }> {
  const [sessions, users] = await Promise.all([sessionsStore(ws), ws.store('users')]);
  // Both in one round trip on PostgreSQL (the user's id is the token's, known before the session).
  const [session, user] = (await getEach([[sessions, sessionId], [users, userId]])) as [SessionDoc | undefined, UserDoc | undefined];
  const live = liveRecords(session, user, userId);
  checkImpersonator(live.session, live.session.impersonatedBy ? (await users.get(live.session.impersonatedBy)) as UserDoc | undefined : undefined);
  return live;
}

/** The session rule, first half (both session checks call it, whatever reads they made): the
 *  session is live and the user's, and the user exists. */
function liveRecords(session: SessionDoc | undefined, user: UserDoc | undefined, userId: string): { user: UserDoc; session: SessionDoc } {
  if (!session || session.revoked || session.userId !== userId) throw ApiError.unauthorized(SESSION_ENDED);
  if (!user) throw ApiError.unauthorized(USER_GONE);
  return { user, session };
}

/** The session rule, second half: an impersonation lasts only while the administrator behind it
 *  (`impersonator`, read by the caller when the session has one) is still an admin. */
function checkImpersonator(session: SessionDoc, impersonator: UserDoc | undefined): void {
  if (lapsed(session, impersonator)) throw ApiError.unauthorized(IMPERSONATION_ENDED);
}

const lapsed = (session: SessionDoc, impersonator: UserDoc | undefined): boolean => !!session.impersonatedBy && impersonator?.role !== 'admin';

/** Is this an impersonation whose administrator is gone or no longer an admin? */
async function impersonationLapsed(users: Store, session: SessionDoc): Promise<boolean> {
  return lapsed(session, session.impersonatedBy ? (await users.get(session.impersonatedBy)) as UserDoc | undefined : undefined);
}

/** Exchanges a refresh token for a new login result, rotating it. A token that was already
 *  rotated away ends its whole session (it has been copied); unknown or expired → 401. */
export async function rotateRefreshToken(ctx: AppContext, ws: Workspace, refreshToken: string): Promise<LoginResult> {
  const settings: TokenSettings = ctx.config;
  const store = await sessionsStore(ws);
  const hash = hashToken(refreshToken);
  const found = ((await store.findBy('refreshHash', hash))[0] ?? (await store.findBy('rotated', hash))[0]) as SessionDoc | undefined;
  if (!found) throw ApiError.unauthorized('Invalid refresh token');
  // One rotation at a time per session (across processes on PostgreSQL): two concurrent
  // refreshes with the same token must not both succeed (the second one is a reuse).
  return store.exclusive(found._id, async () => {
    const session = (await store.get(found._id)) as SessionDoc | undefined;
    if (!session || session.revoked) throw ApiError.unauthorized('Invalid refresh token');
    if (session.refreshHash !== hash) {
      await endSession(ctx, ws, store, session._id);
      throw ApiError.unauthorized('Refresh token already used; the session has been ended');
    }
    if (Date.parse(session.expiresAt) <= ws.now()) {
      await endSession(ctx, ws, store, session._id);
      throw ApiError.unauthorized('Refresh token expired; sign in again');
    }
    const users = await ws.store('users');
    const user = (await users.get(session.userId)) as UserDoc | undefined;
    if (!user || await impersonationLapsed(users, session)) {
      await endSession(ctx, ws, store, session._id);
      throw ApiError.unauthorized('User no longer exists');
    }
    const next = newRefreshToken();
    const updated: SessionDoc = {
      ...session,
      refreshHash: hashToken(next),
      rotated: [...session.rotated, hash].slice(-ROTATED_KEPT),
      expiresAt: refreshExpiry(ws, settings),
      updatedAt: ws.nowIso(),
    };
    await store.replace(session._id, updated);
    return { token: accessTokenFor(ws, user, updated, settings), refreshToken: next, user: publicUser(user) };
  });
}

/** The live session a refresh token belongs to (current token only), if any. */
export async function sessionOfRefreshToken(ws: Workspace, refreshToken: string): Promise<SessionDoc | undefined> {
  const session = (await (await sessionsStore(ws)).findBy('refreshHash', hashToken(refreshToken)))[0] as SessionDoc | undefined;
  return session && !session.revoked ? session : undefined;
}

/** Ends one session: its access and refresh tokens stop working at once. Ended sessions are
 *  deleted, not kept: a missing session answers 401 exactly as a revoked one would. */
export async function revokeSession(ctx: AppContext, ws: Workspace, sessionId: string): Promise<void> {
  await endSession(ctx, ws, await sessionsStore(ws), sessionId);
}

/** Removes a session and says so (session-ends.ts), so that its sockets close at once. */
async function endSession(ctx: AppContext, ws: Workspace, store: Store, sessionId: string): Promise<void> {
  await store.remove(sessionId);
  sessionsEnded(ctx, ws, { sessions: [sessionId] });
}

/** Revokes sessions of a user (all, or all but one). */
export async function revokeUserSessions(ctx: AppContext, ws: Workspace, userId: string, exceptSessionId?: string): Promise<void> {
  const store = await sessionsStore(ws);
  const ended: string[] = [];
  try {
    for (const s of (await store.findBy('userId', userId)) as SessionDoc[]) {
      if (s._id === exceptSessionId) continue;
      await store.remove(s._id);
      ended.push(s._id);
    }
  } finally {
    sessionsEnded(ctx, ws, { sessions: ended });
  }
}

/** Drops a user's sessions whose refresh token has expired (called when a new one starts). */
async function purgeExpiredSessions(ctx: AppContext, ws: Workspace, store: Store, userId: string): Promise<void> {
  const now = ws.now(); // the workspace's time: its clock
  const ended: string[] = [];
  for (const s of (await store.findBy('userId', userId)) as SessionDoc[]) {
    if (s.revoked || Date.parse(s.expiresAt) <= now) { await store.remove(s._id); ended.push(s._id); }
  }
  sessionsEnded(ctx, ws, { sessions: ended });
}

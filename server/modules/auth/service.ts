// The self-service auth rules without HTTP: register, login (rate limited, same answer for an
// unknown email and a wrong password), refresh, logout, recovery, profile, password change
// and impersonation.
import type { AppContext } from '../context.js';
import type { Actor } from '../../core/bus.js';
import type { AuthInfo } from '../caller.js';
import { ApiError } from '../../core/errors.js';
import type { Workspace } from '../../storage/workspace.js';
import { findUser, findUserByEmail, hashPassword, normalizeEmail, verifyPassword, type UserDoc } from '../users/index.js';
import { changeUser, createUser } from '../users/index.js';
import { createSession, revokeSession, rotateRefreshToken, sessionOfRefreshToken, type LoginResult } from './sessions.js';
import { consumeResetToken, sendRecoveryEmail } from './recovery.js';
import type { LoginLimiter } from './rate-limit.js';

export async function register(ctx: AppContext, ws: Workspace, input: { email: string; password: string; name?: string; [k: string]: unknown }): Promise<LoginResult> {
  const user = await createUser(ctx, ws, { ...input, role: 'user' });
  return createSession(ctx, ws, user);
}

// Compared against when the email is unknown, so that both failures take as long: one hash per
// bcrypt cost (two servers in one process may hash at different costs). Not server state: a memo
// of a hash of a fixed text per cost.
const dummyHashes = new Map<number, Promise<string>>();
function dummy(cost: number): Promise<string> {
  let hash = dummyHashes.get(cost);
  if (!hash) { hash = hashPassword('homebase-no-such-user', cost); dummyHashes.set(cost, hash); }
  return hash;
}

export async function login(ctx: AppContext, ws: Workspace, limiter: LoginLimiter, email: string, password: string): Promise<LoginResult> {
  return createSession(ctx, ws, await checkCredentials(ctx, ws, limiter, email, password));
}

/** The user of an email and password, under the failed-login limit (429 past it); 401 for a
 *  wrong pair, after the same work whether or not the email is known. Also the OAuth consent
 *  page's sign-in. */
export async function checkCredentials(ctx: AppContext, ws: Workspace, limiter: LoginLimiter, email: string, password: string): Promise<UserDoc> {
  const attempt = await limiter.begin(limiterKey(ws, email), () => ws.now());
  let user: UserDoc | undefined;
  let ok = false;
  let failed = false;
  try {
    user = await findUserByEmail(ws, email);
    ok = user ? await verifyPassword(password, user.passwordHash) : (await verifyPassword(password, await dummy(ctx.config.bcryptCost)), false);
    failed = !ok;
  } finally {
    // Only a wrong email or password counts; an attempt that broke on something else does not.
    limiter.end(attempt, failed, ws.now());
  }
  if (!ok || !user) throw ApiError.unauthorized('Invalid email or password');
  return user;
}

/** The limiter's key: the workspace and the email (case-insensitive). */
export function limiterKey(ws: Workspace, email: string): string {
  return `${ws.id}\0${normalizeEmail(email)}`;
}

export function refresh(ctx: AppContext, ws: Workspace, refreshToken: string): Promise<LoginResult> {
  return rotateRefreshToken(ctx, ws, refreshToken);
}

/** Ends the caller's session, and the session of `refreshToken` when it is the same user's.
 *  Without a valid access token, a valid refresh token alone is enough. */
export async function logout(ctx: AppContext, ws: Workspace, auth: AuthInfo | null, refreshToken?: string): Promise<void> {
  const other = refreshToken ? await sessionOfRefreshToken(ws, refreshToken) : undefined;
  if (!auth && !other) throw ApiError.unauthorized(refreshToken ? 'Invalid refresh token' : 'Authentication required');
  if (auth) await revokeSession(ctx, ws, auth.sessionId);
  if (other && (!auth || other.userId === auth.userId)) await revokeSession(ctx, ws, other._id);
}

/** Writes a recovery email when the email is registered; the caller answers the same either way. */
export async function forgotPassword(ctx: AppContext, ws: Workspace, email: string): Promise<void> {
  const user = await findUserByEmail(ws, email);
  if (user) await sendRecoveryEmail(ctx, ws, user);
}

/** Sets a new password from a reset token and ends every session of the user. */
export async function resetPassword(ctx: AppContext, ws: Workspace, token: string, password: string): Promise<void> {
  const userId = await consumeResetToken(ctx, ws, token);
  if (!(await findUser(ws, userId))) throw ApiError.invalidField('token', 'invalid', 'The reset token is invalid, expired or already used');
  await changeUser(ctx, ws, userId, { password });
}

/** A wrong current password counts as a failed login of that email (a stolen access token
 *  must not become a way to guess the password without limit). */
export async function changePassword(ctx: AppContext, ws: Workspace, limiter: LoginLimiter, auth: AuthInfo, actor: Actor | undefined, currentPassword: string, newPassword: string): Promise<UserDoc> {
  const attempt = await limiter.begin(limiterKey(ws, auth.user.email), () => ws.now());
  let ok = false;
  let failed = false;
  try {
    ok = await verifyPassword(currentPassword, auth.user.passwordHash);
    failed = !ok;
  } finally {
    limiter.end(attempt, failed, ws.now());
  }
  if (!ok) throw ApiError.invalidField('currentPassword', 'invalid', 'The current password is wrong');
  return changeUser(ctx, ws, auth.userId, { password: newPassword }, { actor, keepSessionId: auth.sessionId });
}

/** A login result for another user; its token carries `act: { sub: <admin id> }`. An admin
 *  already impersonating someone stays the actor. */
export async function impersonate(ctx: AppContext, ws: Workspace, admin: AuthInfo, userId: string): Promise<LoginResult> {
  const user = await findUser(ws, userId);
  if (!user) throw ApiError.notFound('User', userId);
  return createSession(ctx, ws, user, admin.impersonatedBy ?? admin.userId);
}

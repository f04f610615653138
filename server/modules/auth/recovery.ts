// Password recovery: single-use reset tokens valid one hour, stored as SHA-256 hashes only
// (store `reset-tokens`); the token itself travels only in the recovery email of the outbox.
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Workspace } from '../../storage/workspace.js';
import { authOf } from './memory.js';
import { withIndexes, type Store } from '../../storage/store.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { UserDoc } from '../users/index.js';
import { hashToken } from './sessions.js';
import { sendEmail } from './outbox.js';

export const RESET_TTL_SECONDS = 3600;

interface ResetTokenDoc { _id: string; userId: string; tokenHash: string; expiresAt: string; createdAt: string; [key: string]: unknown }

async function resetStore(ws: Workspace): Promise<Store> {
  return withIndexes(await ws.store('reset-tokens'), [{ fieldName: 'tokenHash', unique: true }, { fieldName: 'userId' }]);
}

/** Issues a reset token for a user and writes the recovery email to the outbox. */
export async function sendRecoveryEmail(ctx: AppContext, ws: Workspace, user: UserDoc): Promise<void> {
  const store = await resetStore(ws);
  const token = `hbp_${randomBytes(32).toString('base64url')}`;
  // The workspace's time: reset tokens expire by its clock.
  const now = ws.now();
  const expiresAt = new Date(now + RESET_TTL_SECONDS * 1000).toISOString();
  // Expired tokens of this user are dropped here, so the store does not grow without bound.
  for (const old of (await store.findBy('userId', user._id)) as ResetTokenDoc[]) {
    if (Date.parse(old.expiresAt) <= now) await store.remove(old._id);
  }
  await store.insert({ _id: newId(), userId: user._id, tokenHash: hashToken(token), expiresAt, createdAt: ws.nowIso() });
  await sendEmail(ctx, ws, {
    type: 'password-reset',
    to: user.email,
    subject: 'Reset your password',
    text: `Someone asked to reset the password of ${user.email} in workspace ${ws.id}.\n\n`
      + `Reset code: ${token}\n\nSend it with a new password to POST /auth/reset-password. `
      + 'It works once and expires in one hour. If you did not ask for this, ignore this email.',
    userId: user._id,
    token,
    expiresAt,
  });
}

/** Spends a reset token: resolves to its user id; unknown, used or expired → 422 token invalid.
 *  One token cannot be spent twice: only the caller whose removal took it away spends it (and,
 *  within this server, a second caller is turned away while the first removal is under way). */
export async function consumeResetToken(ctx: AppContext, ws: Workspace, token: string): Promise<string> {
  const store = await resetStore(ws);
  const hash = hashToken(token);
  const doc = (await store.findBy('tokenHash', hash))[0] as ResetTokenDoc | undefined;
  const { spending } = authOf(ctx.state.auth, ws);
  if (!doc || spending.has(hash)) throw invalidToken();
  spending.add(hash);
  try {
    if (!(await store.remove(doc._id))) throw invalidToken();
  } finally {
    spending.delete(hash);
  }
  if (Date.parse(doc.expiresAt) <= ws.now()) throw invalidToken();
  return doc.userId;
}

/** Drops every reset token of a user (password changed, user deleted). */
export async function dropResetTokens(ws: Workspace, userId: string): Promise<void> {
  await (await resetStore(ws)).removeWhere([{ path: 'userId', op: '$eq', values: [userId] }]);
}

const invalidToken = () => ApiError.invalidField('token', 'invalid', 'The reset token is invalid, expired or already used');

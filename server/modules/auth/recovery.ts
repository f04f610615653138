// Password recovery: single-use reset tokens valid one hour, stored as SHA-256 hashes only
// (store `reset-tokens`); the token itself travels only in the recovery email of the outbox.
import { randomBytes } from 'node:crypto';
import type { Workspace } from '../../storage/workspace.js';
import type { DocStore } from '../../storage/doc-store.js';
import { ApiError } from '../../core/errors.js';
import { newId, nowIso } from '../../core/ids.js';
import type { UserDoc } from '../users/repo.js';
import { hashToken } from './sessions.js';
import { sendEmail } from './outbox.js';

export const RESET_TTL_SECONDS = 3600;

interface ResetTokenDoc { _id: string; userId: string; tokenHash: string; expiresAt: string; createdAt: string; [key: string]: unknown }

async function resetStore(ws: Workspace): Promise<DocStore> {
  const store = await ws.store('reset-tokens');
  if (!store.hasIndex('tokenHash')) await store.ensureIndex({ fieldName: 'tokenHash', unique: true });
  if (!store.hasIndex('userId')) await store.ensureIndex({ fieldName: 'userId' });
  return store;
}

/** Issues a reset token for a user and writes the recovery email to the outbox. */
export async function sendRecoveryEmail(ws: Workspace, user: UserDoc): Promise<void> {
  const store = await resetStore(ws);
  const token = `hbp_${randomBytes(32).toString('base64url')}`;
  const expiresAt = new Date(Date.now() + RESET_TTL_SECONDS * 1000).toISOString();
  // Expired tokens of this user are dropped here, so the store does not grow without bound.
  const now = Date.now();
  for (const old of store.findBy('userId', user._id) as ResetTokenDoc[]) {
    if (Date.parse(old.expiresAt) <= now) await store.remove(old._id);
  }
  await store.insert({ _id: newId(), userId: user._id, tokenHash: hashToken(token), expiresAt, createdAt: nowIso() });
  await sendEmail(ws, {
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

// Consumption is synchronous up to the removal being queued, so one token cannot be spent twice.
const spending = new Set<string>();

/** Spends a reset token: resolves to its user id; unknown, used or expired → 422 token invalid. */
export async function consumeResetToken(ws: Workspace, token: string): Promise<string> {
  const store = await resetStore(ws);
  const hash = hashToken(token);
  const doc = store.findBy('tokenHash', hash)[0] as ResetTokenDoc | undefined;
  const key = `${ws.id}\0${hash}`;
  if (!doc || spending.has(key)) throw invalidToken();
  spending.add(key);
  try {
    await store.remove(doc._id);
  } finally {
    spending.delete(key);
  }
  if (Date.parse(doc.expiresAt) <= Date.now()) throw invalidToken();
  return doc.userId;
}

/** Drops every reset token of a user (password changed, user deleted). */
export async function dropResetTokens(ws: Workspace, userId: string): Promise<void> {
  await (await resetStore(ws)).removeWhere({ userId });
}

const invalidToken = () => ApiError.invalidField('token', 'invalid', 'The reset token is invalid, expired or already used');

// What ends with an account, on the sign-in side: a changed password ends the user's other
// sessions and his reset links; a demoted administrator's impersonations end; a deleted user's
// sessions, impersonations and reset links end. The users module calls it through its state.
import type { AccountEnds } from '../users/index.js';
import { revokeUserSessions } from './sessions.js';
import { dropResetTokens } from './recovery.js';
import { sessionsEnded } from './session-ends.js';

export const accountEnds: AccountEnds = {
  async passwordChanged(ctx, ws, userId, keepSessionId) {
    await revokeUserSessions(ctx, ws, userId, keepSessionId);
    await dropResetTokens(ws, userId);
  },
  adminDemoted(ctx, ws, userId) {
    sessionsEnded(ctx, ws, { impersonators: [userId] });
  },
  removed(ctx, ws, userId) {
    sessionsEnded(ctx, ws, { users: [userId], impersonators: [userId] });
  },
  async removedForgotten(ctx, ws, userId) {
    await revokeUserSessions(ctx, ws, userId);
    await dropResetTokens(ws, userId);
  },
};

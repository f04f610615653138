// What ends with an account, on the sign-in side: a changed password ends the user's other
// sessions and his reset links; a demoted administrator's impersonations end; a deleted user's
// sessions, impersonations and reset links end. The users module calls it through its state.
import type { AccountEnds } from '../users/index.js';
import { revokeUserSessions } from './sessions.js';
import { dropResetTokens } from './recovery.js';
import { sessionsEnded } from './session-ends.js';

export const accountEnds: AccountEnds = {
  async passwordChanged(ws, userId, keepSessionId) {
    await revokeUserSessions(ws, userId, keepSessionId);
    await dropResetTokens(ws, userId);
  },
  adminDemoted(ws, userId) {
    sessionsEnded(ws, { impersonators: [userId] });
  },
  removed(ws, userId) {
    sessionsEnded(ws, { users: [userId], impersonators: [userId] });
  },
  async removedForgotten(ws, userId) {
    await revokeUserSessions(ws, userId);
    await dropResetTokens(ws, userId);
  },
};

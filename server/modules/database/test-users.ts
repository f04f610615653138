// Test helper: a signed-in non-admin user of the test workspace (inserted directly, so the
// database tests do not depend on the users API).
import type { TestServer } from '../../test/harness.js';
import { insertUser } from '../users/repo.js';
import { createSession } from '../auth/sessions.js';

export async function signedInUser(t: TestServer, email: string, role = 'user'): Promise<{ id: string; token: string }> {
  const ws = t.srv.ctx.registry.require(t.workspace);
  const user = await insertUser(ws, { email, password: 'user-password-1', name: email.split('@')[0], role }, 4);
  const login = await createSession(ws, user, t.srv.config);
  return { id: user._id, token: login.token };
}

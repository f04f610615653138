// Test helper for the chats and realtime suites: signed-in users of the harness's workspace,
// created straight through the users repo and sessions (no dependence on the users routes).
import type { TestServer } from '../../test/harness.js';
import { insertUser } from '../users/repo.js';
import { createSession } from '../auth/sessions.js';

export interface TestUser { _id: string; name: string; email: string; token: string }

let counter = 0;
export async function makeUser(t: TestServer, name: string, role = 'user'): Promise<TestUser> {
  const ws = t.srv.ctx.registry.require(t.workspace);
  const email = `${name.toLowerCase().replace(/\W+/g, '')}-${++counter}-${Date.now()}@example.test`;
  const user = await insertUser(ws, { email, password: 'password-123', name, role }, 4);
  const { token } = await createSession(ws, user, t.srv.config);
  return { _id: user._id, name, email, token };
}

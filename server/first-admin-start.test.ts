// An in-memory start returns before its first admin's password hash is made (it is stored just
// after): whatever comes right after the start must still find the admin. A sign-in, a minted
// admin token, the in-process snapshot and the stop all wait for it; the CLI's start line does
// not. (In memory only: on disk and on PostgreSQL the admin is
// stored before the start returns, as before.)
import { afterEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { startServer, type StartedServer } from './index.js';
import { serveJson } from './test/spawn.js';

const servers: StartedServer[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  for (const s of servers.splice(0)) await s.close();
});

const ADMIN = { email: 'first@example.com', password: 'first-admin-password-1' };

async function post(url: string, body: unknown, token?: string) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() as any };
}

describe('an in-memory start stores its first admin just after it returns', { timeout: 60_000 }, () => {
  it('a sign-in sent right after the start succeeds, and the admin sees itself', async () => {
    // Cost 12: a hash long enough (a quarter of a second or more) for the requests to arrive
    // before it is done, were they not held until the admin is stored.
    const srv = await startServer({ port: 0, inMemory: true, adminEmail: ADMIN.email, adminPassword: ADMIN.password, bcryptCost: 12 });
    servers.push(srv);
    const api = `${srv.url}/app/demo`;
    // Sent together, at once: none may see the workspace without its admin.
    const [login, token] = await Promise.all([
      post(`${api}/auth/login`, ADMIN),
      post(`${srv.url}/workspaces/demo/token`, {}, srv.consoleToken),
    ]);
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    expect(login.body.user).toMatchObject({ email: ADMIN.email, role: 'admin' });
    expect(login.body.user.passwordHash).toBeUndefined();
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    const users = await fetch(`${api}/users`, { headers: { authorization: `Bearer ${token.body.token}` } });
    expect(users.status).toBe(200);
    expect((await users.json() as { data: Array<{ email: string }> }).data.map((u) => u.email)).toEqual([ADMIN.email]);
    const me = await fetch(`${api}/auth/me`, { headers: { authorization: `Bearer ${login.body.token}` } });
    expect(me.status).toBe(200);
    expect((await me.json() as { email: string }).email).toBe(ADMIN.email);
    // A wrong password is still refused.
    expect((await post(`${api}/auth/login`, { ...ADMIN, password: 'wrong-password-1' })).status).toBe(401);
  });

  it('a generated password signs in right after the start', async () => {
    const srv = await startServer({ port: 0, inMemory: true, bcryptCost: 10 });
    servers.push(srv);
    expect(srv.generatedAdmin).toBeDefined();
    const { email, password } = srv.generatedAdmin!;
    const login = await post(`${srv.url}/app/demo/auth/login`, { email, password });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    expect(login.body.user.role).toBe('admin');
  });

  it('a snapshot taken right after the start holds the admin, and a restore of it still signs in', async () => {
    const srv = await startServer({ port: 0, inMemory: true, adminEmail: ADMIN.email, adminPassword: ADMIN.password, bcryptCost: 10 });
    servers.push(srv);
    const snap = await srv.snapshot('at-start');
    expect(snap.users).toBe(1);
    await srv.restore('at-start');
    expect((await post(`${srv.url}/app/demo/auth/login`, ADMIN)).status).toBe(200);
  });

  it('a stop right after the start waits for the admin and reports nothing lost', async () => {
    const srv = await startServer({ port: 0, inMemory: true, adminEmail: ADMIN.email, adminPassword: ADMIN.password, bcryptCost: 10 });
    await expect(srv.close()).resolves.toBeUndefined();
  });

  it('homebase serve --in-memory --json: a sign-in sent as soon as the start line is read succeeds', async () => {
    const { child, line } = await serveJson(['--port', '0', '--in-memory', '--quiet', '--admin-email', ADMIN.email, '--admin-password', ADMIN.password]);
    children.push(child);
    const login = await post(`${line.url}/app/demo/auth/login`, ADMIN);
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    expect(login.body.user.email).toBe(ADMIN.email);
  });
});

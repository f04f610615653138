import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';

let t: TestServer;
beforeAll(async () => { t = await startTestServer({ loginRateLimit: 3 }); });
afterAll(async () => { await t.close(); });

const login = (email: string, password: string) => t.req('POST', '/auth/login', { token: null, body: { email, password } });

describe('failed-login limit', () => {
  it('answers 429 with Retry-After after too many failures for one email, whatever the password', async () => {
    const email = 'limited@example.com';
    await t.req('POST', '/auth/register', { token: null, body: { email, password: 'password-123' } });
    // Successful logins never count.
    for (let i = 0; i < 5; i++) expect((await login(email, 'password-123')).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await login(email, 'wrong-password')).status).toBe(401);
    const limited = await login(email, 'wrong-password');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    const retry = Number(limited.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    // Even the right password waits: otherwise the limit would not stop guessing.
    expect((await login(email, 'password-123')).status).toBe(429);
    expect((await login(email.toUpperCase(), 'password-123')).status).toBe(429);
    // Other emails are not affected.
    expect((await login(t.adminEmail, t.adminPassword)).status).toBe(200);
  });

  it('limits unknown emails too, and parallel guesses cannot slip past', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => login('ghost@example.com', 'guess-guess')));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
  });

  it('counts wrong current passwords at change-password against the same email', async () => {
    const email = 'changer@example.com';
    const reg = await t.req('POST', '/auth/register', { token: null, body: { email, password: 'password-123' } });
    const change = (currentPassword: string) => t.req('PUT', '/auth/change-password', { token: reg.body.token, body: { currentPassword, newPassword: 'password-456' } });
    for (let i = 0; i < 2; i++) expect((await change('wrong-password')).status).toBe(422);
    expect((await login(email, 'wrong-password')).status).toBe(401);
    const limited = await change('password-123');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await login(email, 'password-123')).status).toBe(429);
  });

  it('never answers 429 to correct logins that run at once (only failures that happened count)', async () => {
    const busy = await startTestServer({ loginRateLimit: 10 });
    try {
      const email = 'parallel@example.com';
      await busy.req('POST', '/auth/register', { token: null, body: { email, password: 'password-123' } });
      const results = await Promise.all(Array.from({ length: 16 }, () => busy.req('POST', '/auth/login', { token: null, body: { email, password: 'password-123' } })));
      expect(results.map((r) => r.status)).toEqual(Array(16).fill(200));
    } finally {
      await busy.close();
    }
  });

  it('lets correct logins through after failures below the limit, even in parallel', async () => {
    const email = 'some-failures@example.com';
    await t.req('POST', '/auth/register', { token: null, body: { email, password: 'password-123' } });
    for (let i = 0; i < 2; i++) expect((await login(email, 'wrong-password')).status).toBe(401);
    const results = await Promise.all(Array.from({ length: 6 }, () => login(email, 'password-123')));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
    // A mix: the right password always passes while the window is not full; wrong ones fill it.
    const mixed = await Promise.all(Array.from({ length: 6 }, (_, i) => login(email, i % 2 ? 'password-123' : 'wrong-password')));
    const statuses = mixed.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(1); // 2 + 1 = the limit of 3
    expect(statuses.every((s) => s === 200 || s === 401 || s === 429)).toBe(true);
    expect((await login(email, 'password-123')).status).toBe(429);
  });

  it('never answers 429 to correct change-password calls that run at once', async () => {
    const email = 'parallel-changer@example.com';
    const reg = await t.req('POST', '/auth/register', { token: null, body: { email, password: 'password-123' } });
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => t.req('PUT', '/auth/change-password', { token: reg.body.token, body: { currentPassword: 'password-123', newPassword: `password-45${i}` } })));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
  });

  it('forgets a workspace\'s failures on reset and on snapshot restore', async () => {
    const own = await startTestServer({ loginRateLimit: 2 });
    try {
      const adminLogin = (password: string) => own.req('POST', '/auth/login', { token: null, body: { email: own.adminEmail, password } });
      const lockOut = async () => {
        for (let i = 0; i < 2; i++) expect((await adminLogin('wrong-password')).status).toBe(401);
        expect((await adminLogin(own.adminPassword)).status).toBe(429);
      };
      expect((await own.consoleReq('POST', '/workspaces/demo/snapshots', { name: 'start' })).status).toBe(201);
      await lockOut();
      expect((await own.consoleReq('POST', '/workspaces/demo/reset')).status).toBe(200);
      expect((await adminLogin(own.adminPassword)).status).toBe(200);
      await lockOut();
      expect((await own.consoleReq('POST', '/workspaces/demo/snapshots/start/restore')).status).toBe(200);
      expect((await adminLogin(own.adminPassword)).status).toBe(200);
      // Another workspace's counts are not touched.
      expect((await own.consoleReq('POST', '/workspaces', { _id: 'other', admin: { email: 'other@example.com', password: 'other-password-1' } })).status).toBe(201);
      const otherLogin = (password: string) => fetch(`${own.url}/app/other/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'other@example.com', password }) });
      for (let i = 0; i < 2; i++) expect((await otherLogin('wrong-password')).status).toBe(401);
      expect((await own.consoleReq('POST', '/workspaces/demo/reset')).status).toBe(200);
      expect((await otherLogin('other-password-1')).status).toBe(429);
    } finally {
      await own.close();
    }
  });

  it('is off with loginRateLimit: false (the harness default)', async () => {
    const free = await startTestServer();
    try {
      for (let i = 0; i < 12; i++) {
        const res = await free.req('POST', '/auth/login', { token: null, body: { email: 'x@example.com', password: 'wrong-password' } });
        expect(res.status).toBe(401);
      }
    } finally {
      await free.close();
    }
  });
});

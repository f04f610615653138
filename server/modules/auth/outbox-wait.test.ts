// The outbox long poll (GET /workspaces/{id}/outbox?to=&wait=) and the links and codes listed
// with each email. Runs on both drivers.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { linksAndCodes, pendingWaits } from './outbox-wait.js';

let t: TestServer;
beforeAll(async () => { t = await startTestServer(); });
afterAll(async () => { await t.close(); });

async function signUp() {
  const email = `w-${Math.random().toString(36).slice(2)}@example.com`;
  expect((await t.req('POST', '/auth/register', { token: null, body: { email, password: 'password-123' } })).status).toBe(201);
  return email;
}
const forgot = async (email: string) => expect((await t.req('POST', '/auth/forgot-password', { token: null, body: { email } })).status).toBe(202);

describe('outbox wait', () => {
  it('answers a pending wait with the email sent meanwhile, its code listed', async () => {
    const email = await signUp();
    const other = await signUp();
    const ws = t.srv.ctx.registry.require('demo');
    const pending = t.consoleReq('GET', `/workspaces/demo/outbox?to=${encodeURIComponent(email.toUpperCase())}&wait=20000`);
    await vi.waitFor(() => expect(pendingWaits(t.srv.ctx, ws)).toBe(1), { timeout: 5000, interval: 10 });
    await forgot(other); // to another address: the wait goes on
    await forgot(email);
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body.meta.total).toBe(1);
    const [message] = res.body.data;
    expect(message).toMatchObject({ to: email, type: 'password-reset', links: [], codes: [message.token] });
    expect(message.token).toMatch(/^hbp_/);
    expect(pendingWaits(t.srv.ctx, ws)).toBe(0);
    // The code works.
    const reset = await t.req('POST', '/auth/reset-password', { token: null, body: { token: message.codes[0], password: 'new-password-1' } });
    expect(reset.status).toBeLessThan(300);
  });

  it('answers at once when an email to that address is there already, and lists codes on a plain list too', async () => {
    const email = await signUp();
    await forgot(email);
    const res = await t.consoleReq('GET', `/workspaces/demo/outbox?to=${encodeURIComponent(email)}&wait=30000`);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    const plain = await t.consoleReq('GET', '/workspaces/demo/outbox?limit=1');
    expect(plain.body.data[0].codes).toEqual([plain.body.data[0].token]);
  });

  it('answers an empty list when nothing comes within the wait', async () => {
    const res = await t.consoleReq('GET', '/workspaces/demo/outbox?to=nobody%40example.com&wait=30');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], meta: { total: 0, limit: expect.any(Number), offset: 0 } });
  });

  it('refuses a wait above 30000 ms or not a whole number, naming it', async () => {
    for (const wait of ['30001', '-1', 'soon', '1.5']) {
      const res = await t.consoleReq('GET', `/workspaces/demo/outbox?wait=${wait}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('BAD_REQUEST');
      expect(res.body.error.details.field).toBe('wait');
      expect(res.body.error.message).toContain('wait');
    }
    expect((await t.consoleReq('GET', '/workspaces/demo/outbox?to=a@example.com&to=b@example.com')).status).toBe(400);
  });

  it('finds links and codes in subject, text and html', () => {
    expect(linksAndCodes({
      subject: 'Your code is 482913',
      text: 'Open https://app.example.com/reset?token=hbp_abcdefghijklmnopqrstuv. or use hbp_ZYXWVUTSRQPONMLKJIHGFE\nOrder 12345 shipped',
      html: '<a href="http://localhost:3000/verify?x=1">verify</a>',
    })).toEqual({
      links: ['https://app.example.com/reset?token=hbp_abcdefghijklmnopqrstuv', 'http://localhost:3000/verify?x=1'],
      codes: ['482913', 'hbp_ZYXWVUTSRQPONMLKJIHGFE'],
    });
  });
});

// What every spec shares: the server's URL and console token, a fresh workspace per test
// (deleted after it), API helpers to arrange data, a signed-in page, and the axe check.
import { test as base, expect, type Page } from '@playwright/test';
import { AxeBuilder } from '@axe-core/playwright';
import { randomBytes } from 'node:crypto';

export const SERVER = () => process.env.HOMEBASE_E2E_URL!;
export const TOKEN = () => process.env.HOMEBASE_E2E_TOKEN!;

export async function consoleApi<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${SERVER()}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN()}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

export class Workspace {
  constructor(readonly id: string, private token = '') {}
  get base() { return `${SERVER()}/api/app/${this.id}`; }
  async adminToken(): Promise<string> {
    if (!this.token) this.token = (await consoleApi<{ token: string }>('POST', `/workspaces/${this.id}/token`)).body.token;
    return this.token;
  }
  async api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${await this.adminToken()}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  }
}

export const test = base.extend<{ ws: Workspace; signedIn: Page }>({
  baseURL: async ({}, use) => { await use(SERVER()); }, // eslint-disable-line no-empty-pattern
  ws: async ({}, use) => { // eslint-disable-line no-empty-pattern
    const id = `t${randomBytes(5).toString('hex')}`;
    const created = await consoleApi('POST', '/workspaces', { _id: id, name: `Test ${id}`, admin: { email: 'admin@example.com', password: 'admin-password-1' } });
    expect(created.status).toBe(201);
    await use(new Workspace(id));
    await consoleApi('DELETE', `/workspaces/${id}`);
  },
  /** A page signed in through the console link (token in the fragment). */
  signedIn: async ({ page }, use) => {
    // The console loads nothing from another host: any such request fails the test.
    const foreign: string[] = [];
    page.on('request', (r) => { const u = new URL(r.url()); if (!['127.0.0.1', 'localhost'].includes(u.hostname) && !u.protocol.startsWith('data') && !u.protocol.startsWith('blob')) foreign.push(r.url()); });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`/#token=${TOKEN()}`);
    await expect(page.getByRole('heading', { name: 'Workspaces' })).toBeVisible();
    await use(page);
    expect(foreign, 'requests to other hosts').toEqual([]);
    expect(errors, 'uncaught page errors').toEqual([]);
  },
});

/** No serious or critical axe violation on what the page shows now. */
export async function expectAccessible(page: Page, what: string, exclude: string[] = []): Promise<void> {
  let builder = new AxeBuilder({ page });
  for (const sel of exclude) builder = builder.exclude(sel);
  const result = await builder.analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const report = bad.map((v) => `${v.impact} ${v.id}: ${v.help}\n  ${v.nodes.slice(0, 10).map((n) => n.target.join(' ')).join('\n  ')}`).join('\n');
  expect(report, `axe on ${what}`).toBe('');
}

export { expect };

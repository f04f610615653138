// One of each resource for the robustness sweep (collection with fields, record, user, file,
// channel + message, webhook, scenario, secret, a scratch workspace with a snapshot), plus
// makers of fresh ones for calls that consume what they touch (DELETE, refresh, reset...).
import type { TestServer } from './harness.js';

export interface Fixture {
  /** Placeholder name (`col`, `rec`...) → id used in paths. */
  ids: Record<string, string>;
  /** Placeholder name → maker of a fresh one (its id). */
  make: Record<string, () => Promise<string>>;
  /** A unique suffix for names and ids. */
  uniq(): string;
  /** A refresh token of a fresh session. */
  refreshToken(): Promise<string>;
  /** A password-reset token of a fresh user. */
  resetToken(): Promise<string>;
  /** A valid admin token of the scratch workspace (401 in the test workspace). */
  otherWorkspaceToken: string;
}

/** The raw fetch used by every case: full URL, any method, headers and body; never throws on
 *  a status, reports a hang as status -1. */
export interface Hit { status: number; text: string; body: any; headers: Headers; url?: string; method?: string }

export async function hit(url: string, method: string, o: { token?: string | null; headers?: Record<string, string>; raw?: BodyInit } = {}): Promise<Hit> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.token) headers.authorization ??= `Bearer ${o.token}`;
  try {
    const res = await fetch(url, { method, headers, body: o.raw, signal: AbortSignal.timeout(10_000) });
    const text = await res.text();
    let body: unknown;
    try { body = text ? JSON.parse(text) : undefined; } catch { body = text; }
    return { status: res.status, text, body, headers: res.headers, url, method };
  } catch (err) {
    return { status: -1, text: String((err as Error).message), body: undefined, headers: new Headers() };
  }
}

export const USER_PASSWORD = 'user-password-1';

export async function buildFixture(t: TestServer): Promise<Fixture> {
  let n = 0;
  const uniq = () => `${Date.now().toString(36)}${++n}`;
  const ok = <T>(res: { status: number; body: T; text: string }, what: string): T => {
    if (res.status >= 300) throw new Error(`fixture: ${what} answered ${res.status}: ${res.text}`);
    return res.body;
  };
  const post = async (path: string, body: unknown, what: string, token?: string) =>
    ok(await t.req('POST', path, { body, ...(token ? { token } : {}) }), what) as { _id: string; [k: string]: unknown };

  const col = 'things';
  ok(await t.req('POST', '/database', { body: { _id: col, name: 'Things', setting: { read: 'private', write: 'private', update: 'private' } } }), 'collection');
  for (const f of [{ _id: 'name', type: 'string' }, { _id: 'age', type: 'number' }, { _id: 'tags', type: 'array' }, { _id: 'meta', type: 'json' }]) {
    await post(`/database/${col}/fields`, f, 'field');
  }
  const owner = await t.user('Member');
  const ids: Record<string, string> = { col, field: 'name', member: owner._id };

  const make: Record<string, () => Promise<string>> = {
    col: async () => (await post('/database', { _id: `c${uniq()}`, name: 'Tmp', setting: { read: 'private', write: 'private', update: 'private' } }, 'collection'))._id,
    rec: async () => (await post(`/database/${col}`, { name: 'Ann', age: 30, tags: ['a'], meta: { x: 1 } }, 'record'))._id,
    field: async () => (await post(`/database/${col}/fields`, { _id: `f${uniq()}`, type: 'string' }, 'field'))._id,
    view: async () => (await post(`/database/${col}/views`, { _id: `v${uniq()}`, filter: { age: { $gte: 1 } }, sort: '-age' }, 'view'))._id,
    index: async () => (await post(`/database/${col}/indexes`, { _id: `i${uniq()}`, fields: [`x${uniq()}`] }, 'index'))._id,
    user: async () => (await t.user('Someone'))._id,
    file: async () => {
      const form = new FormData();
      form.append('file', new Blob(['hello world'], { type: 'text/plain' }), 'hello.txt');
      return ok(await t.req('POST', '/storage/upload', { raw: form }), 'upload')._id;
    },
    channel: async () => (await post('/chats/channels', { name: 'General', type: 'group', members: [owner._id] }, 'channel'))._id,
    msg: async () => (await post(`/chats/${ids.channel}/messages`, { text: 'hello', type: 'text' }, 'message'))._id,
    member: async () => {
      const u = await t.user('Joiner');
      await post(`/chats/${ids.channel}/members`, { userId: u._id }, 'member');
      return u._id;
    },
    hook: async () => (await post('/webhooks', { name: 'Hook', url: 'http://127.0.0.1:9/hook', events: ['user.created'], active: false }, 'webhook'))._id,
    scn: async () => (await post('/scenarios', { name: 'Scn', trigger: { type: 'manual' }, steps: [{ type: 'delay', ms: 0 }] }, 'scenario'))._id,
    secret: async () => (await post('/credentials', { name: `S${uniq()}`, type: 'api-key', value: 'top-secret-value' }, 'secret'))._id,
    ws: async () => {
      const id = `w${uniq()}`;
      ok(await t.consoleReq('POST', '/workspaces', { _id: id, admin: { email: 'boss@example.test', password: 'boss-password-1' } }), 'workspace');
      return id;
    },
    snap: async () => ok(await t.consoleReq('POST', `/workspaces/${ids.scratch}/snapshots`, { name: `s${uniq()}` }), 'snapshot').name as string,
  };

  for (const k of ['rec', 'view', 'index', 'user', 'file', 'channel', 'hook', 'scn', 'secret']) ids[k] = await make[k]();
  ids.msg = await make.msg();
  ids.scratch = await make.ws();
  ids.ws = await make.ws(); // only the success call deletes a workspace, and a fresh one
  ids.snap = await make.snap();
  const otherWorkspaceToken = ok(await t.consoleReq('POST', `/workspaces/${ids.scratch}/token`), 'token').token as string;

  return {
    ids, make, uniq, otherWorkspaceToken,
    refreshToken: async () => {
      const u = await t.user('Refresher');
      return ok(await t.req('POST', '/auth/login', { token: null, body: { email: u.email, password: USER_PASSWORD } }), 'login').refreshToken;
    },
    resetToken: async () => {
      const u = await t.user('Forgetful');
      ok(await t.req('POST', '/auth/forgot-password', { token: null, body: { email: u.email } }), 'forgot-password');
      const outbox = ok(await t.consoleReq('GET', `/workspaces/${t.workspace}/outbox?limit=1`), 'outbox') as { data: Array<{ token: string }> };
      return outbox.data[0].token;
    },
  };
}

// Test helper: requests to the v2 face of a test server (server/test/harness.ts).
import type { TestServer } from '../test/harness.js';

export interface V2Res<T = any> { status: number; body: T; headers: Headers; text: string }

export interface V2Options { token?: string | null; body?: unknown; headers?: Record<string, string> }

/** A request to `{base_url}/v2/app/{workspace}{path}`; the admin token unless `token` says otherwise. */
export function v2Client(t: TestServer) {
  return async function v2<T = any>(method: string, path: string, o: V2Options = {}): Promise<V2Res<T>> {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    const token = o.token === undefined ? t.adminToken : o.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (o.body !== undefined) { body = JSON.stringify(o.body); headers['content-type'] ??= 'application/json'; }
    const res = await fetch(`${t.url}/v2/app/${t.workspace}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : undefined; } catch { /* not JSON */ }
    return { status: res.status, body: parsed as T, headers: res.headers, text };
  };
}

/** A collection for the tests: `title` required, public reads, private writes. */
export async function makeCollection(t: TestServer, id: string, fields: unknown[] = [{ _id: 'title', name: 'Title', type: 'string', required: true }]) {
  const res = await t.req('POST', '/database', { body: { _id: id, name: id, setting: { read: 'public', write: 'private', update: 'private' }, fields } });
  if (res.status !== 201) throw new Error(`collection ${id}: ${res.status} ${res.text}`);
}

// Robustness and contract sweep: every endpoint of the workspace and console APIs answers its
// success code, and every hostile input (bodies, ids, query strings, headers, methods, garbage
// imports) gets a clear error in the contract's shape: no 5xx, no hang, no stack trace or path,
// no prototype pollution, nothing half-written. Tables live in robustness-cases.ts.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';
import { buildFixture, hit, type Fixture, type Hit } from './robustness-fixture.js';
import {
  BODY_CASES, ENDPOINTS, HEADER_CASES, ID_CASES, QUERY_CASES, WRONG_VALUES,
  jsonBodied, label, placeholders, problemsOf, type Endpoint,
} from './robustness-cases.js';

let t: TestServer;
let f: Fixture;
beforeAll(async () => { t = await startTestServer(); f = await buildFixture(t); }, 60_000);
afterAll(async () => { await t?.close(); });

interface CallOptions {
  ids?: Record<string, string>;
  /** Replaces the path (after the placeholders are filled). */
  path?: (p: string) => string;
  query?: string;
  /** A raw body and its type instead of the endpoint's valid one. */
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** An Authorization header value instead of the endpoint's token ('' = none). */
  authorization?: string;
  method?: string;
}

const fill = (e: Endpoint, ids: Record<string, string>) => e.path.replace(/\{(\w+)\}/g, (_, k: string) => ids[k]);

async function tokenOf(e: Endpoint): Promise<string | null> {
  if (e.console) return t.consoleToken;
  if (e.as === 'anonymous') return null;
  if (e.as === 'fresh-user') return (await t.user('Fresh')).token;
  return t.adminToken;
}

/** One call of an endpoint: its valid body and token unless the options replace them. */
async function call(e: Endpoint, o: CallOptions = {}): Promise<Hit> {
  let path = fill(e, { ...f.ids, ...o.ids });
  if (o.path) path = o.path(path);
  const url = `${e.console ? t.url : t.api}${path}${o.query ? `?${o.query}` : ''}`;
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  const token = await tokenOf(e);
  if (o.authorization !== undefined) { if (o.authorization !== '') headers.authorization = o.authorization; }
  else if (token) headers.authorization = `Bearer ${token}`;
  let raw: BodyInit | undefined;
  if (o.raw !== undefined) {
    raw = o.raw;
    headers['content-type'] = o.contentType ?? 'application/json';
  } else if (e.body) {
    raw = JSON.stringify(await e.body(f));
    headers['content-type'] = 'application/json';
  } else if (e.kind === 'multipart') {
    const form = new FormData();
    form.append('file', new Blob(['some bytes'], { type: 'text/plain' }), 'notes.txt');
    raw = form;
  } else if (e.kind === 'tus') {
    Object.assign(headers, { 'tus-resumable': '1.0.0', 'upload-length': '3', 'upload-metadata': `filename ${Buffer.from('a.txt').toString('base64')}` });
  }
  return hit(url, o.method ?? e.method, { headers, raw });
}

/** Runs `check` over rows one by one and fails once with every problem found. */
async function sweep<R>(rows: R[], check: (row: R) => Promise<string[]>) {
  const problems: string[] = [];
  for (const row of rows) problems.push(...(await check(row)));
  expect(problems, `\n${problems.join('\n')}\n`).toEqual([]);
  expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

const at = (e: Endpoint, what = '') => (p: string) => `${label(e)}${what ? ` [${what}]` : ''} → ${p}`;
const validBody = async (e: Endpoint) => (e.body ? ((await e.body(f)) as Record<string, unknown>) : {});

describe('every endpoint exists and answers its success code', () => {
  it.each(ENDPOINTS.map((e) => [label(e), e] as const))('%s', async (_name, e) => {
    const ids: Record<string, string> = {};
    for (const k of e.fresh ?? []) ids[k] = await f.make[k]();
    const res = await call(e, { ids });
    expect(res.status, res.text.slice(0, 300)).toBe(e.success);
  });
});

describe('hostile bodies get a 4xx in the contract shape', () => {
  const targets = ENDPOINTS.filter(jsonBodied);
  it.each(BODY_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    await sweep(targets, async (e) => {
      const raw = typeof c.raw === 'string' ? c.raw : c.raw(await validBody(e));
      const res = await call(e, { raw, contentType: c.contentType, headers: c.headers });
      // Imports take bodies far above the 1 MiB JSON limit.
      const expected = e.path.endsWith('/import') && c.expect?.includes(413) ? [200, 422] : c.expect;
      return problemsOf(res, expected).map(at(e));
    });
  });
});

describe('fields of the wrong type are a 422 (or accepted), never a 400 or 5xx', () => {
  const targets = ENDPOINTS.filter(jsonBodied);
  it.each(WRONG_VALUES.map(([name, value]) => [name, value] as const))('%s in place of each value, at any depth', async (_name, value) => {
    await sweep(targets, async (e) => {
      const out: string[] = [];
      for (const path of leafPaths(await validBody(e))) {
        // Fresh bodies (tokens, unique ids) are made per call; one value is replaced.
        const body = setAt(await validBody(e), path, value);
        const res = await call(e, { raw: JSON.stringify(body) });
        // Self-service auth: a well-typed but wrong credential is a 401.
        const expected = [e.success, 404, 409, 422, ...(e.as === 'anonymous' ? [401] : [])];
        out.push(...problemsOf(res, expected).map(at(e, path.join('.'))));
      }
      return out;
    });
  });
});

/** Every path of a JSON value (object keys and array indexes), parents before children. */
function leafPaths(v: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = prefix.length ? [prefix] : [];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...leafPaths(x, [...prefix, i])));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...leafPaths(x, [...prefix, k]));
  return out;
}

/** A copy of `v` with the value at `path` replaced. */
function setAt(v: unknown, path: Array<string | number>, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy: any = Array.isArray(v) ? [...v] : { ...(v as object) };
  copy[path[0]] = setAt((v as any)[path[0]], path.slice(1), value);
  return copy;
}

describe('hostile ids in paths get a 4xx', () => {
  const targets = ENDPOINTS.filter((e) => placeholders(e).length > 0);
  it.each(ID_CASES.map(([name, id]) => [name, id] as const))('%s', async (_name, id) => {
    await sweep(targets, async (e) => {
      const out: string[] = [];
      for (const k of placeholders(e)) {
        const res = await call(e, { ids: { [k]: id } });
        out.push(...problemsOf(res, [400, 404, 422]).map(at(e, k)));
      }
      return out;
    });
  });

  it('malformed percent-encoding is a 400 that says so', async () => {
    for (const path of ['/database/things/%E0%A4%A', '/users/%ZZ', '/database/%']) {
      const res = await t.req('GET', path);
      expect(problemsOf(res as Hit, [400]), path).toEqual([]);
      expect(res.body.error.message).toMatch(/percent-encoding/);
    }
  });

  it('empty segments and trailing slashes', async () => {
    const shapes: Array<[string, (p: string) => string]> = [
      ['trailing slash', (p) => `${p}/`],
      ['double slash inside', (p) => p.replace(/\/([^/]*)$/, '//$1')],
      ['empty first segment', (p) => `/${p}`],
    ];
    await sweep(ENDPOINTS.filter((e) => e.method !== 'DELETE'), async (e) => {
      const out: string[] = [];
      // Off the upload route, a multipart body meets the JSON parser: 415.
      const expected = [e.success, 400, 404, 409, 422, ...(e.kind === 'multipart' ? [415] : [])];
      for (const [name, shape] of shapes) out.push(...problemsOf(await call(e, { path: shape }), expected).map(at(e, name)));
      return out;
    });
  });
});

describe('hostile query strings on list endpoints', () => {
  const targets = ENDPOINTS.filter((e) => e.list);
  it.each(QUERY_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    await sweep(targets, async (e) => problemsOf(await call(e, { query: c.query }), c.expect).map(at(e)));
  });

  it('clamps a huge limit to 100', async () => {
    const res = await t.req('GET', '/database/things?limit=99999999999999999999');
    expect(res.body.meta.limit).toBe(100);
  });

  it('clamps a huge offset past the end', async () => {
    const res = await t.req('GET', '/database/things?offset=99999999999999999999');
    expect(res.body).toMatchObject({ data: [], meta: { offset: Number.MAX_SAFE_INTEGER } });
  });
});

describe('bad Authorization headers are a 401', () => {
  it.each(HEADER_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const authorization = await c.authorization(f);
    await sweep(ENDPOINTS, async (e) => {
      const res = await call(e, { authorization });
      // Self-service auth endpoints take no token: a bad one may be ignored there.
      return problemsOf(res, e.as === 'anonymous' ? undefined : [401]).map(at(e));
    });
  });

  it('a bad ?token= on a download is a 401', async () => {
    for (const token of ['garbage', '', 'a.b.c', f.otherWorkspaceToken]) {
      const res = await hit(`${t.api}/storage/${f.ids.file}/download?token=${encodeURIComponent(token)}`, 'GET');
      expect(problemsOf(res, [401]), token).toEqual([]);
    }
  });
});

describe('a plain user gets 403 or an answer, never a 5xx', () => {
  it('on every workspace endpoint, with valid and hostile ids', async () => {
    const user = await t.user('Plain');
    // (logout would end the session the rest of the sweep runs on)
    await sweep(ENDPOINTS.filter((e) => !e.console && e.as !== 'anonymous' && e.path !== '/auth/logout'), async (e) => {
      const out: string[] = [];
      const asUser = { authorization: `Bearer ${user.token}` };
      // DELETE with the fixture's ids could only succeed on the user's own things; fresh ones keep the fixture intact.
      const ids: Record<string, string> = {};
      if (e.method === 'DELETE') for (const k of e.fresh ?? []) ids[k] = await f.make[k]();
      out.push(...problemsOf(await call(e, { ...asUser, ids })).map(at(e, 'valid ids')));
      for (const k of placeholders(e)) {
        for (const [, id] of ID_CASES.slice(0, 12)) out.push(...problemsOf(await call(e, { ...asUser, ids: { [k]: id } })).map(at(e, `${k}=${id.slice(0, 20)}`)));
      }
      return out;
    });
  });
});

describe('unsupported methods are a 404 (docs/errors.md)', () => {
  it('on every path', async () => {
    const byPath = new Map<string, Endpoint[]>();
    for (const e of ENDPOINTS) byPath.set(e.path, [...(byPath.get(e.path) ?? []), e]);
    const rows = [...byPath.values()].filter((es) => !es[0].kind || es[0].kind !== 'tus');
    await sweep(rows, async (es) => {
      const out: string[] = [];
      const known = new Set(es.map((e) => e.method));
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        if (known.has(method)) continue;
        // A path like /database/{col}/fields also reads as a record id under PUT/DELETE; that is still a 404.
        const res = await call({ ...es[0], method, body: undefined, kind: undefined }, { raw: method === 'GET' || method === 'DELETE' ? undefined : '{}' });
        out.push(...problemsOf(res, [404]).map(at({ ...es[0], method })));
      }
      return out;
    });
  });
});

describe('HEAD and CORS preflights', () => {
  it('HEAD answers like GET, without a body', async () => {
    await sweep(ENDPOINTS.filter((e) => e.method === 'GET'), async (e) => {
      const res = await call(e, { method: 'HEAD' });
      return [...problemsOf(res, [e.success]), ...(res.text === '' ? [] : ['HEAD with a body'])].map(at(e, 'HEAD'));
    });
  });

  it('a preflight is a 204 with CORS headers on the workspace API, and grants nothing on the console API', async () => {
    await sweep(ENDPOINTS, async (e) => {
      const res = await call({ ...e, body: undefined, kind: undefined }, {
        method: 'OPTIONS', authorization: '', headers: { origin: 'http://localhost:5173', 'access-control-request-method': e.method, 'access-control-request-headers': 'authorization,content-type' },
      });
      const allowed = res.headers.get('access-control-allow-origin');
      if (e.console) return [...problemsOf(res), ...(allowed ? [`console grants ${allowed}`] : [])].map(at(e, 'OPTIONS'));
      return [...problemsOf(res, [204]), ...(allowed === '*' ? [] : ['no Access-Control-Allow-Origin'])].map(at(e, 'OPTIONS'));
    });
  });
});

describe('console API', () => {
  const consoleRoutes = ENDPOINTS.filter((e) => e.console);
  it('an unknown workspace is a 404 on every :appId route', async () => {
    await sweep(consoleRoutes.filter((e) => /\{(scratch|ws)\}/.test(e.path)), async (e) => {
      const out: string[] = [];
      for (const ws of ['nope', 'constructor', '__proto__', 'toString', '9bad', 'a'.repeat(300)]) {
        out.push(...problemsOf(await call(e, { ids: { scratch: ws, ws } }), [404]).map(at(e, ws)));
      }
      return out;
    });
  });

  it('an unknown workspace is a 404 on the workspace API', async () => {
    for (const ws of ['nope', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect(problemsOf(await hit(`${t.url}/app/${ws}/database`, 'GET', { token: t.adminToken }), [404]), ws).toEqual([]);
    }
  });

  const GARBAGE_DUMPS: Array<[string, unknown]> = [
    ['an empty object', {}],
    ['a wrong format', { format: 'other', version: 1 }],
    ['a future version', { format: 'homebase-dump', version: 99 }],
    ['records not an object', { format: 'homebase-dump', version: 1, records: [1, 2] }],
    ['a record without _id', { format: 'homebase-dump', version: 1, records: { things: [{ name: 'x' }] } }],
    ['a record with a $ key', { format: 'homebase-dump', version: 1, records: { things: [{ _id: 'r1', $bad: 1 }] } }],
    ['users not an array', { format: 'homebase-dump', version: 1, users: 'nope' }],
    ['a user without email', { format: 'homebase-dump', version: 1, users: [{ _id: 'u1', role: 'admin' }] }],
    ['files without content', { format: 'homebase-dump', version: 1, files: [{ _id: 'f1', name: 'a' }] }],
    ['a collection with a bad id', { format: 'homebase-dump', version: 1, schema: { collections: [{ _id: '../x' }] } }],
    ['stores with a bad name', { format: 'homebase-dump', version: 1, stores: { '../../etc': [] } }],
    ['a __proto__ store', JSON.parse('{"format":"homebase-dump","version":1,"stores":{"__proto__":[{"_id":"x"}]}}')],
  ];

  it.each(GARBAGE_DUMPS)('import of %s is a 422 with a JSON path, and changes nothing', async (_name, dump) => {
    const before = await t.consoleReq('GET', `/workspaces/${t.workspace}/export`);
    const res = await t.consoleReq('POST', `/workspaces/${t.workspace}/import`, dump);
    expect(problemsOf(res as Hit, [422]), res.text).toEqual([]);
    expect(typeof res.body.error.details.field).toBe('string');
    const after = await t.consoleReq('GET', `/workspaces/${t.workspace}/export`);
    expect({ ...after.body, exportedAt: undefined }).toEqual({ ...before.body, exportedAt: undefined });
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('import of a dump nested 10,000 deep is refused and changes nothing', async () => {
    const raw = `{"format":"homebase-dump","version":1,"records":{"things":[{"_id":"r1","deep":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}]}}`;
    const res = await hit(`${t.url}/workspaces/${t.workspace}/import`, 'POST', { token: t.consoleToken, headers: { 'content-type': 'application/json' }, raw });
    expect(problemsOf(res, [400, 422])).toEqual([]);
    expect((await t.req('GET', '/database/things/r1')).status).toBe(404);
  });
});

describe('nothing half-written', () => {
  it('failed creations leave no record, user, channel or file behind', async () => {
    const creators: Array<[string, string]> = [['/database/{col}', '/database/things'], ['/users', '/users'], ['/chats/channels', '/chats/channels']];
    for (const [post, list] of creators) {
      const before = (await t.req('GET', `${list}?limit=0`)).body.meta.total;
      let created = 0;
      for (const c of BODY_CASES) {
        const e = ENDPOINTS.find((x) => x.method === 'POST' && x.path === post)!;
        const raw = typeof c.raw === 'string' ? c.raw : c.raw(await validBody(e));
        const res = await call(e, { raw, contentType: c.contentType, headers: c.headers });
        if (res.status === 201) created++;
      }
      const after = (await t.req('GET', `${list}?limit=0`)).body.meta.total;
      expect(after - before, post).toBe(created);
    }
  });

  it('bad uploads leave no file object', async () => {
    const before = (await t.req('GET', '/storage?limit=0')).body.meta.total;
    const bad: Array<[string, RequestInit['body'], Record<string, string>]> = [
      ['no file part', (() => { const fd = new FormData(); fd.append('other', 'x'); return fd; })(), {}],
      ['JSON instead of multipart', '{"file":"x"}', { 'content-type': 'application/json' }],
      ['a broken multipart body', '--xx\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc', { 'content-type': 'multipart/form-data; boundary=xx' }],
      ['a multipart type without boundary', 'abc', { 'content-type': 'multipart/form-data' }],
      ['no body at all', undefined, {}],
    ];
    for (const [name, body, headers] of bad) {
      const res = await hit(`${t.api}/storage/upload`, 'POST', { token: t.adminToken, headers, raw: body as BodyInit });
      expect(problemsOf(res, [400, 415, 422]), name).toEqual([]);
    }
    expect((await t.req('GET', '/storage?limit=0')).body.meta.total).toBe(before);
  });

  it('file names with NUL, newlines, slashes and unicode upload and download cleanly', async () => {
    for (const name of ['a\u0000b.txt', 'line\r\nbreak.txt', '../../etc/passwd', 'résumé 😀.txt', '"quoted".txt', 'x'.repeat(2000)]) {
      const form = new FormData();
      form.append('file', new Blob(['data'], { type: 'text/plain\r\nx-injected: 1' }), name);
      const up = await hit(`${t.api}/storage/upload`, 'POST', { token: t.adminToken, raw: form });
      // busboy refuses a NUL inside a part's headers: a malformed multipart body (400).
      expect(problemsOf(up, name.includes('\u0000') ? [201, 400] : [201]), name).toEqual([]);
      if (up.status !== 201) continue;
      const down = await hit(`${t.api}/storage/${up.body._id}/download`, 'GET', { token: t.adminToken });
      expect(problemsOf(down, [200]), name).toEqual([]);
      expect(down.headers.get('x-injected')).toBeNull();
    }
  });
});

describe('the same create sent 10 times at once: one 201, the rest 409, never a 5xx', () => {
  const RACES: Array<[string, string, (u: string) => unknown, boolean]> = [
    ['a collection id', '/database', (u) => ({ _id: `race${u}`, setting: { read: 'private', write: 'private', update: 'private' } }), true],
    ['a record id', '/database/things', (u) => ({ _id: `r${u}`, name: 'x' }), true],
    ['a user email', '/users', (u) => ({ email: `race-${u}@example.test`, password: 'password-123' }), true],
    ['a registration email', '/auth/register', (u) => ({ email: `reg-${u}@example.test`, password: 'password-123' }), false],
    ['a secret name', '/credentials', (u) => ({ name: `RACE${u}`, value: 'v' }), true],
    ['a field id', '/database/things/fields', (u) => ({ _id: `race${u}`, type: 'string' }), true],
    ['a view id', '/database/things/views', (u) => ({ _id: `race${u}` }), true],
  ];
  it.each(RACES)('%s', async (_name, path, body, admin) => {
    const u = f.uniq();
    const answers = await Promise.all(Array.from({ length: 10 }, () => t.req('POST', path, { body: body(u), ...(admin ? {} : { token: null }) })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses, answers.map((a) => a.text).join('\n')).toEqual([201, ...Array(9).fill(409)]);
    for (const a of answers) expect(problemsOf(a as Hit)).toEqual([]);
  });
});

describe('compressed bodies', () => {
  it('a gzip body is read, and a gzip bomb is a 413', async () => {
    const { gzipSync } = await import('node:zlib');
    const post = (raw: Buffer) => hit(`${t.api}/database/things`, 'POST', { token: t.adminToken, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, raw: new Uint8Array(raw) });
    expect(problemsOf(await post(gzipSync(JSON.stringify({ name: 'zipped' }))), [201])).toEqual([]);
    const bomb = gzipSync(`{"name":"${'0'.repeat(20 * 1024 * 1024)}"}`); // ~20 KiB on the wire, 20 MiB inflated
    expect(problemsOf(await post(bomb), [413])).toEqual([]);
  });
});

describe('limits leave nothing behind', () => {
  it('an upload over the limit is a 413 and leaves no file object and no bytes', async () => {
    const { readdir } = await import('node:fs/promises');
    const { storageOf } = await import('../modules/storage/service.js');
    const small = await startTestServer({ uploadLimit: 1024, importLimit: 2048 });
    try {
      const ws = small.srv.ctx.registry.require(small.workspace);
      const area = await storageOf(small.srv.ctx).area(ws);
      const form = new FormData();
      form.append('file', new Blob(['x'.repeat(4096)]), 'big.bin');
      const res = await hit(`${small.api}/storage/upload`, 'POST', { token: small.adminToken, raw: form });
      expect(problemsOf(res, [413])).toEqual([]);
      expect((await small.req('GET', '/storage?limit=0')).body.meta.total).toBe(0);
      // The part file goes once its writer has closed, just after the answer: wait for it.
      for (let i = 0; i < 100 && (await readdir(area.incoming)).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await readdir(area.incoming)).toEqual([]);
      expect(await readdir(area.files)).toEqual([]);
      // An import over its own limit: a 413, and the workspace is untouched.
      const big = await hit(`${small.url}/workspaces/${small.workspace}/import`, 'POST', {
        token: small.consoleToken, headers: { 'content-type': 'application/json' }, raw: JSON.stringify({ format: 'homebase-dump', version: 1, pad: 'x'.repeat(4096) }),
      });
      expect(problemsOf(big, [413])).toEqual([]);
      expect((await small.req('GET', '/auth/me')).status).toBe(200);
    } finally {
      await small.close();
    }
  });
});

describe('tus requests with bad headers', () => {
  const tus = () => `${t.api}/storage/upload/tus`;
  const V = { 'tus-resumable': '1.0.0' };
  const B64 = (s: string) => Buffer.from(s).toString('base64');
  // [case, method, path after /tus ('' = creation URL), headers, body, expected]
  const CASES: Array<[string, string, string, Record<string, string>, string | undefined, number[]]> = [
    ['Upload-Length -1', 'POST', '', { ...V, 'upload-length': '-1' }, undefined, [400]],
    ['Upload-Length abc', 'POST', '', { ...V, 'upload-length': 'abc' }, undefined, [400]],
    ['Upload-Length of 23 digits', 'POST', '', { ...V, 'upload-length': '99999999999999999999999' }, undefined, [400, 413]],
    ['Upload-Metadata not base64', 'POST', '', { ...V, 'upload-length': '3', 'upload-metadata': 'filename !!!, x' }, undefined, [400]],
    ['a __proto__ metadata key', 'POST', '', { ...V, 'upload-length': '3', 'upload-metadata': `__proto__ ${B64('x')}` }, undefined, [201, 400]],
    ['a path as the file name', 'POST', '', { ...V, 'upload-length': '3', 'upload-metadata': `filename ${B64('../../../etc/passwd')}` }, undefined, [201]],
    ['an unknown tus version', 'POST', '', { 'tus-resumable': '0.2.0', 'upload-length': '3' }, undefined, [400]],
    ['PATCH of an unknown upload', 'PATCH', '/Nope1234', { ...V, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, 'abc', [404]],
    ['PATCH of a hostile id', 'PATCH', '/..%2F..%2Fetc', { ...V, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, 'abc', [404]],
    ['DELETE of an unknown upload', 'DELETE', '/Nope1234', V, undefined, [404]],
  ];
  it.each(CASES)('%s', async (_name, method, path, headers, body, expected) => {
    const res = await hit(`${tus()}${path}`, method, { token: t.adminToken, headers, raw: body });
    expect(problemsOf(res, expected)).toEqual([]);
  });

  it('PATCH with a wrong offset, type or length on a real upload', async () => {
    const created = await hit(tus(), 'POST', { token: t.adminToken, headers: { ...V, 'upload-length': '3' } });
    const url = created.headers.get('location')!;
    const patch = (offset: string, type: string, body: string) => hit(url, 'PATCH', { token: t.adminToken, headers: { ...V, 'upload-offset': offset, 'content-type': type }, raw: body });
    expect(problemsOf(await patch('2', 'application/offset+octet-stream', 'abc'), [409])).toEqual([]);
    expect(problemsOf(await patch('-1', 'application/offset+octet-stream', 'abc'), [400])).toEqual([]);
    expect(problemsOf(await patch('0', 'application/json', 'abc'), [400, 415])).toEqual([]);
    expect(problemsOf(await patch('0', 'application/offset+octet-stream', 'abcdef'), [413])).toEqual([]);
    expect((await t.req('GET', `/storage/${url.split('/').pop()}`)).status).toBe(404);
  });
});

describe('ids and field names that are Object.prototype members', () => {
  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf'])('%s works as a collection, record, view, index, secret and workspace id, and is refused as a field', async (id) => {
    const answers: Array<[string, Hit, number]> = [];
    const step = async (what: string, res: { status: number }, expected: number) => { answers.push([what, res as Hit, expected]); return res; };
    await step('collection', await t.req('POST', '/database', { body: { _id: id, setting: { read: 'private', write: 'private', update: 'private' } } }), 201);
    // Refused as a field (docs/database.md): the store's indexes read keys through the prototype chain.
    const field = await step('field', await t.req('POST', `/database/${id}/fields`, { body: { _id: id, type: 'string' } }), 422) as Hit;
    expect(field.body?.error?.details).toMatchObject({ field: '_id', reason: 'invalid' });
    await step('view', await t.req('POST', `/database/${id}/views`, { body: { _id: id } }), 201);
    await step('index', await t.req('POST', `/database/${id}/indexes`, { body: { _id: `i${id}`, fields: ['name'] } }), 201);
    // A record without the field named like a prototype member must not "have" it.
    await step('record without the field', await t.req('POST', `/database/${id}`, { body: { name: 'x' } }), 201);
    await step('record with the field', await t.req('POST', `/database/${id}`, { body: { _id: id, [id]: 'v' } }), 201);
    await step('record read', await t.req('GET', `/database/${id}/${id}`), 200);
    await step('view read', await t.req('GET', `/database/${id}/views/${id}`), 200);
    await step('list with the view', await t.req('GET', `/database/${id}?view=${id}`), 200);
    await step('secret', await t.req('POST', '/credentials', { body: { name: `${id}_${f.uniq()}`, value: 'v' } }), 201);
    await step('collection delete', await t.req('DELETE', `/database/${id}`), 204);
    await step('workspace', await t.consoleReq('POST', '/workspaces', { _id: id }), 201);
    await step('workspace token', await t.consoleReq('POST', `/workspaces/${id}/token`), 200);
    await step('workspace delete', await t.consoleReq('DELETE', `/workspaces/${id}`), 204);
    const problems = answers.flatMap(([what, res, expected]) => problemsOf(res, [expected]).map((p) => `${what}: ${p} ${res.text.slice(0, 200)}`));
    expect(problems).toEqual([]);
  });
});

describe('keys the store cannot hold are named in the 422', () => {
  const ROWS: Array<[string, string, string, string, string]> = [
    ['a nested $ key in a profile field', 'PUT', '/auth/me', '{"meta":{"$gt":1}}', 'meta.$gt'],
    ['a nested dotted key in a user field', 'PUT', '/users/{user}', '{"prefs":{"a.b":1}}', 'prefs.a.b'],
    ['a nested $ key in a record', 'POST', '/database/things', '{"meta":{"$where":"1"}}', 'meta.$where'],
    ['a dotted key in a record update', 'PATCH', '/database/things/{rec}', '{"x.y":1}', 'x.y'],
    ['a $ key in a scenario step body', 'POST', '/scenarios', '{"name":"s","steps":[{"type":"http","url":"http://x","body":{"$set":1}}]}', 'steps.0.body.$set'],
    ['a dotted key in a scenario trigger', 'PUT', '/scenarios/{scn}', '{"trigger":{"type":"manual","a.b":1}}', 'trigger.a.b'],
  ];
  it.each(ROWS)('%s', async (_name, method, path, raw, field) => {
    const res = await hit(`${t.api}${path.replace(/\{(\w+)\}/g, (_, k: string) => f.ids[k])}`, method, { token: t.adminToken, headers: { 'content-type': 'application/json' }, raw });
    expect(problemsOf(res, [422])).toEqual([]);
    expect(res.body.error.details.field).toBe(field);
  });
});

describe('realtime: hostile frames get an error frame, and the socket lives on', () => {
  const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
  // [case, raw frame]
  const FRAMES: Array<[string, string]> = [
    ['invalid JSON', '{nope'],
    ['a JSON array', '[1]'],
    ['JSON null', 'null'],
    ['no type', '{}'],
    ['an unknown type', '{"type":"explode"}'],
    ['a type nested 10,000 deep', `{"type":${deep}}`],
    ['a frame nested 10,000 deep', `{"type":"subscribe","topic":"chat:x","extra":${deep}}`],
    ['a topic of the wrong type', '{"type":"subscribe","topic":{"a":1}}'],
    ['an unknown topic kind', '{"type":"subscribe","topic":"nope:x"}'],
    ['topic chat:constructor', '{"type":"subscribe","topic":"chat:constructor"}'],
    ['topic database:__proto__', '{"type":"subscribe","topic":"database:__proto__"}'],
    ['topic database:toString', '{"type":"subscribe","topic":"database:toString"}'],
    ['a 10,000-char topic', `{"type":"subscribe","topic":"chat:${'a'.repeat(10_000)}"}`],
    ['unsubscribe without topic', '{"type":"unsubscribe"}'],
    ['message to an unknown channel', '{"type":"message","channelId":"constructor","text":"hi"}'],
    ['message with object text', '{"type":"message","channelId":"x","text":{"a":1}}'],
    ['message with __proto__', '{"type":"message","__proto__":{"polluted":true},"channelId":"x","text":"hi"}'],
  ];
  it.each(FRAMES)('%s', async (_name, raw) => {
    const { TestSocket, realtimeUrl } = await import('../modules/realtime/test-socket.js');
    const s = await TestSocket.open(realtimeUrl(t.api, t.adminToken));
    try {
      s.send(raw);
      const reply = await s.next((fr) => fr.type === 'error');
      expect(reply.code).not.toBe('INTERNAL');
      expect(JSON.stringify(reply)).not.toMatch(/\n\s+at |\/work\/|node_modules/);
      const ok = await s.subscribe(`chat:${f.ids.channel}`);
      expect(ok.type).toBe('subscribed');
    } finally {
      s.close();
    }
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('Content-Length mismatches', () => {
  /** Writes a raw request and reads the raw answer (or the close). */
  const rawRequest = (head: string, body: string, halfClose = true) => new Promise<string>((resolve, reject) => {
    const { port } = new URL(t.url);
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      socket.write(head + body);
      if (halfClose) socket.end();
    });
    let out = '';
    socket.setTimeout(5000, () => { socket.destroy(); reject(new Error('hang')); });
    socket.on('data', (d) => { out += d.toString(); });
    socket.on('close', () => resolve(out));
    socket.on('error', () => resolve(out));
  });
  const head = (length: string) => `POST /api/app/demo/database/things HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.adminToken}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`;

  it('a body shorter than Content-Length (client stops sending) gets no 5xx and no hang', async () => {
    const out = await rawRequest(head('100'), '{"name":"x"}');
    expect(out).not.toMatch(/^HTTP\/1\.1 5/);
  });

  it('a body longer than Content-Length is cut there: a 400, not a 5xx', async () => {
    const out = await rawRequest(head('5'), '{"name":"xyz"}');
    expect(out).toMatch(/^HTTP\/1\.1 400/);
    expect(out).toContain('"BAD_REQUEST"');
  });

  it('a non-numeric Content-Length is refused', async () => {
    const out = await rawRequest(head('abc'), '{}');
    expect(out).toMatch(/^HTTP\/1\.1 400/);
    expect(out).toContain('"BAD_REQUEST"');
  });

  it('a request line over the 16 KiB header limit is a 400 in the contract shape', async () => {
    const res = await hit(`${t.api}/database/things?filter[name]=${'x'.repeat(20_000)}`, 'GET', { token: t.adminToken });
    expect(problemsOf(res, [400])).toEqual([]);
  });
});

describe('after the sweep', () => {
  // Runs last: the workspace now holds whatever the hostile inputs above managed to store.
  it('the export of everything stored imports back unchanged', async () => {
    const exported = await t.consoleReq('GET', `/workspaces/${t.workspace}/export`);
    expect(exported.status).toBe(200);
    const imported = await hit(`${t.url}/workspaces/${t.workspace}/import`, 'POST', {
      token: t.consoleToken, headers: { 'content-type': 'application/json' }, raw: exported.text,
    });
    expect(problemsOf(imported, [200]), imported.text.slice(0, 500)).toEqual([]);
    const again = await t.consoleReq('GET', `/workspaces/${t.workspace}/export`);
    const strip = (d: Record<string, unknown>) => ({ ...d, exportedAt: undefined, webhooks: undefined });
    expect(strip(again.body)).toEqual(strip(exported.body));
  });
});

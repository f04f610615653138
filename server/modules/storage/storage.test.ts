// Simple uploads, listing, downloads (Range, 304, ?token=), deletion, hostile names and
// workspace isolation, over HTTP with fetch + FormData.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { TEST_DRIVER, startTestServer, tempDataDir, type TestServer } from '../../test/harness.js';
import type { BusEvent } from '../../core/bus.js';
import { storageOf } from './service.js';

let t: TestServer;
let userToken: string;
let userId: string;
const events: BusEvent[] = [];

async function upload(body: BodyInit, token: string | null = t.adminToken, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.api}/storage/upload`, {
    method: 'POST', body, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Waits (bounded) for a condition that follows an answer, such as a file removal. */
async function eventually(check: () => boolean, ms = 5000) {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function form(bytes: Uint8Array | string, name = 'hello.txt', type = 'text/plain', field = 'file') {
  const fd = new FormData();
  fd.append('note', 'a plain field is ignored');
  fd.append(field, new Blob([bytes as BlobPart], { type }), name);
  return fd;
}

/** A multipart body built by hand, for file names fetch's FormData would refuse or rewrite. */
function rawMultipart(filenameParam: string, content: string, type = 'text/plain') {
  const boundary = 'hbBoundary7MA4YWxkTrZu0gW';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; ${filenameParam}\r\nContent-Type: ${type}\r\n\r\n`, 'latin1'),
    Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A multipart body of several file parts, built by hand: [field name, file name, content]. */
function multiParts(parts: Array<[string, string, string | Buffer]>) {
  const boundary = 'hbBoundaryParts9Zq3';
  const body = Buffer.concat([
    ...parts.flatMap(([field, filename, content]) => [
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: text/plain\r\n\r\n`),
      Buffer.from(content),
      Buffer.from('\r\n'),
    ]),
    Buffer.from(`--${boundary}--\r\n`),
  ]);
  return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

beforeAll(async () => {
  t = await startTestServer();
  t.srv.ctx.bus.subscribe((e) => { events.push(e); });
  const reg = await t.req('POST', '/auth/register', { token: null, body: { email: 'user@example.com', password: 'user-password-1', name: 'User' } });
  expect(reg.status).toBe(201);
  userToken = reg.body.token;
  userId = reg.body.user._id;
});
afterAll(() => t.close());

describe('simple upload', () => {
  it('stores the file part and answers 201 with the file object and its url', async () => {
    const res = await upload(form('hello, world', 'hello.txt', 'text/plain'), userToken);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'hello.txt', size: 12, type: 'text/plain', _owner: userId });
    expect(res.body._id).toMatch(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/);
    expect(res.body.url).toBe(`${t.api}/storage/${res.body._id}/download`);
    expect(typeof res.body.createdAt).toBe('string');
    expect(res.body.updatedAt).toBe(res.body.createdAt);
    const ev = events.find((e) => e.type === 'file.uploaded' && e.data._id === res.body._id);
    expect(ev).toMatchObject({ app: 'demo', data: res.body, actor: { _id: userId } });

    const info = await t.req('GET', `/storage/${res.body._id}`, { token: userToken });
    expect(info.status).toBe(200);
    expect(info.body).toEqual(res.body);
  });

  it('falls back to application/octet-stream and keeps binary bytes intact', async () => {
    const bytes = randomBytes(300_000);
    const res = await upload(form(bytes, 'blob.bin', ''));
    expect(res.status).toBe(201);
    expect(res.body.type).toBe('application/octet-stream');
    expect(res.body.size).toBe(bytes.length);
    const dl = await fetch(res.body.url, { headers: { authorization: `Bearer ${t.adminToken}` } });
    expect(dl.status).toBe(200);
    expect(Buffer.from(await dl.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('answers 422 required when there is no file part', async () => {
    const fd = new FormData();
    fd.append('other', 'x');
    const res = await upload(fd);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'file', reason: 'required' } });
    const named = await upload(form('x', 'a.txt', 'text/plain', 'attachment'));
    expect(named.status).toBe(422);
  });

  it('reads and ignores other file parts, before and after the first `file` part', async () => {
    // curl -F thumb=@a.txt -F file=@b.txt -F file=@c.txt -F extra=@d.txt
    const { body, headers } = multiParts([['thumb', 'a.txt', 'THUMB'], ['file', 'b.txt', 'the file'], ['file', 'c.txt', 'second'], ['extra', 'd.txt', 'more']]);
    const res = await upload(new Uint8Array(body), t.adminToken, headers);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'b.txt', size: 8 });
    const dl = await fetch(res.body.url, { headers: { authorization: `Bearer ${t.adminToken}` } });
    expect(await dl.text()).toBe('the file');
    // Many ignored parts ahead of it are fine too.
    const many = multiParts([...Array.from({ length: 15 }, (_, i) => [`p${i}`, `p${i}.txt`, 'x'.repeat(1000)] as [string, string, string]), ['file', 'last.txt', 'last']]);
    const last = await upload(new Uint8Array(many.body), t.adminToken, many.headers);
    expect(last.status).toBe(201);
    expect(last.body).toMatchObject({ name: 'last.txt', size: 4 });
  });

  it('answers 415 for a body that is not multipart, 400 for a broken one', async () => {
    const json = await t.req('POST', '/storage/upload', { body: { file: 'x' } });
    expect(json.status).toBe(415);
    expect(json.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const noBoundary = await upload('abc', t.adminToken, { 'content-type': 'multipart/form-data' });
    expect(noBoundary.status).toBe(400);
    expect(noBoundary.body.error.code).toBe('BAD_REQUEST');
  });

  it('needs a signed-in user', async () => {
    const res = await upload(form('x'), null);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });
});

describe('hostile names', () => {
  const cases: Array<[string, string, (name: string) => void]> = [
    ['path traversal', 'filename="../../etc/passwd"', (n) => expect(n).toBe('passwd')],
    ['windows path', 'filename="..\\\\..\\\\boot.ini"', (n) => expect(n).toBe('boot.ini')],
    ['dot dot only', 'filename=".."', (n) => expect(n).toBe('file')],
    ['control characters', "filename*=UTF-8''a%01b%1Bc%7F%0D%0A.txt", (n) => expect(n).toBe('abc.txt')],
    ['bidi override', "filename*=UTF-8''evil%E2%80%AEtxt.exe", (n) => expect(n).toBe('eviltxt.exe')],
    ['NUL byte', "filename*=UTF-8''a%00b.txt", (n) => expect(n).not.toContain('\u0000')],
    ['unicode', "filename*=UTF-8''r%C3%A9sum%C3%A9%20%E2%9C%93.pdf", (n) => expect(n).toBe('résumé ✓.pdf')],
  ];
  for (const [label, param, check] of cases) {
    it(`stores a clean display name (${label}) and never uses it as a path`, async () => {
      const { body, headers } = rawMultipart(param, 'secret');
      const res = await upload(body, t.adminToken, headers);
      expect(res.status).toBe(201);
      check(res.body.name);
      const dl = await fetch(res.body.url, { headers: { authorization: `Bearer ${t.adminToken}` } });
      expect(dl.status).toBe(200);
      expect(await dl.text()).toBe('secret');
      const cd = dl.headers.get('content-disposition')!;
      expect(cd).toMatch(/^attachment|^inline/);
      expect(cd).not.toMatch(/[\u0000-\u001f\u007f]/);
      expect(cd).toContain("filename*=UTF-8''");
    });
  }

  it('caps a 10,000-character name', async () => {
    const long = `${'a'.repeat(10_000)}.png`;
    const res = await upload(form('x', long, 'image/png'));
    expect(res.status).toBe(201);
    expect(res.body.name.length).toBeLessThanOrEqual(255);
    expect(res.body.name.endsWith('.png')).toBe(true);
  });

  it('answers 400 when a part header itself holds raw control characters', async () => {
    const { body, headers } = rawMultipart('filename="a\u0001b.txt"', 'x');
    const res = await upload(body, t.adminToken, headers);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
  });

  it('writes an ASCII fallback and an RFC 6266 encoded name', async () => {
    const { body, headers } = rawMultipart("filename*=UTF-8''na%C3%AFve%20%22quote%22.txt", 'x');
    const res = await upload(body, t.adminToken, headers);
    const dl = await fetch(res.body.url, { headers: { authorization: `Bearer ${t.adminToken}` } });
    expect(dl.headers.get('content-disposition')).toBe(
      `inline; filename="na_ve _quote_.txt"; filename*=UTF-8''na%C3%AFve%20%22quote%22.txt`);
  });
});

describe('download', () => {
  let file: any;
  const content = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz');
  beforeAll(async () => { file = (await upload(form(content, 'alphabet.txt', 'text/plain'), userToken)).body; });
  const get = (headers: Record<string, string> = {}, url = file.url) => fetch(url, { headers: { authorization: `Bearer ${t.adminToken}`, ...headers } });

  it('sends type, length, ETag, disposition and nosniff', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(res.headers.get('content-length')).toBe(String(content.length));
    expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="alphabet.txt"; filename*=UTF-8''alphabet.txt`);
    expect(Buffer.from(await res.arrayBuffer()).equals(content)).toBe(true);
  });

  it('answers a Range with 206 and Content-Range', async () => {
    const res = await get({ range: 'bytes=10-15' });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 10-15/${content.length}`);
    expect(res.headers.get('content-length')).toBe('6');
    expect(await res.text()).toBe('abcdef');
    const suffix = await get({ range: 'bytes=-3' });
    expect(suffix.status).toBe(206);
    expect(await suffix.text()).toBe('xyz');
    const open = await get({ range: 'bytes=30-' });
    expect(await open.text()).toBe('uvwxyz');
  });

  it('answers 416 for an unsatisfiable range and 200 for a malformed one', async () => {
    const res = await get({ range: 'bytes=1000-2000' });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe(`bytes */${content.length}`);
    const bad = await get({ range: 'pages=1-2' });
    expect(bad.status).toBe(200);
  });

  it('ignores Range when If-Range names another version', async () => {
    const res = await get({ range: 'bytes=0-1', 'if-range': '"other"' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(content.toString());
  });

  it('answers If-None-Match with 304', async () => {
    const etag = (await get()).headers.get('etag')!;
    const res = await get({ 'if-none-match': etag });
    expect(res.status).toBe(304);
    expect(res.headers.get('etag')).toBe(etag);
    expect(await res.text()).toBe('');
    const other = await get({ 'if-none-match': '"nope"' });
    expect(other.status).toBe(200);
  });

  it('accepts ?token= for <img src>, and refuses anonymous or bad tokens', async () => {
    const viaQuery = await fetch(`${file.url}?token=${encodeURIComponent(userToken)}`);
    expect(viaQuery.status).toBe(200);
    expect(await viaQuery.text()).toBe(content.toString());
    expect((await fetch(file.url)).status).toBe(401);
    expect((await fetch(`${file.url}?token=nonsense`)).status).toBe(401);
  });

  it('keeps active content from running: HTML is an attachment with a sandbox CSP', async () => {
    const html = (await upload(form('<script>alert(1)</script>', 'x.html', 'text/html'))).body;
    const res = await get({}, html.url);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(res.headers.get('content-security-policy')).toContain('sandbox');
  });

  it('answers 404 for unknown and malformed ids', async () => {
    expect((await t.req('GET', '/storage/nope12345')).status).toBe(404);
    expect((await t.req('GET', '/storage/nope12345/download')).status).toBe(404);
    expect((await t.req('GET', `/storage/${encodeURIComponent('../../etc/passwd')}/download`)).status).toBe(404);
    expect((await t.req('DELETE', '/storage/nope12345')).status).toBe(404);
  });
});

describe('list', () => {
  it('lists files with the list parameters', async () => {
    const all = await t.req('GET', '/storage', { token: userToken });
    expect(all.status).toBe(200);
    expect(all.body.meta).toMatchObject({ limit: 50, offset: 0 });
    expect(all.body.meta.total).toBeGreaterThan(3);
    expect(all.body.data[0]).toHaveProperty('url');
    const page = await t.req('GET', '/storage?limit=2&offset=1&sort=-createdAt');
    expect(page.body.data).toHaveLength(2);
    expect(page.body.meta).toMatchObject({ total: all.body.meta.total, limit: 2, offset: 1 });
    const mine = await t.req('GET', `/storage?filter[_owner]=${userId}`);
    expect(mine.body.data.length).toBeGreaterThan(0);
    expect(mine.body.data.every((f: any) => f._owner === userId)).toBe(true);
    const big = await t.req('GET', '/storage?filter[size][$gte]=1000');
    expect(big.body.data.every((f: any) => f.size >= 1000)).toBe(true);
    expect((await t.req('GET', '/storage?limit=abc')).status).toBe(400);
    expect((await t.req('GET', '/storage', { token: null })).status).toBe(401);
  });
});

describe('delete', () => {
  it('lets the owner or an admin delete, 403 for others; the bytes go too', async () => {
    const mine = (await upload(form('owned by admin', 'a.txt'))).body;
    const forbidden = await t.req('DELETE', `/storage/${mine._id}`, { token: userToken });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');

    const theirs = (await upload(form('owned by user', 'b.txt'), userToken)).body;
    const del = await t.req('DELETE', `/storage/${theirs._id}`, { token: userToken });
    expect(del.status).toBe(204);
    expect((await t.req('GET', `/storage/${theirs._id}`)).status).toBe(404);
    expect((await t.req('GET', `/storage/${theirs._id}/download`)).status).toBe(404);
    const ev = events.find((e) => e.type === 'file.deleted' && e.data._id === theirs._id);
    expect(ev).toMatchObject({ data: { _id: theirs._id, name: 'b.txt' }, actor: { _id: userId } });

    expect((await t.req('DELETE', `/storage/${mine._id}`)).status).toBe(204);
    expect((await t.req('DELETE', `/storage/${mine._id}`)).status).toBe(404);
  });
});

describe('workspaces', () => {
  it("refuses another workspace's token and never finds its files", async () => {
    const created = await t.consoleReq('POST', '/workspaces', { _id: 'other', admin: { email: 'o@example.com', password: 'other-password-1' } });
    expect(created.status).toBe(201);
    const minted = await t.consoleReq('POST', '/workspaces/other/token');
    const otherToken = minted.body.token as string;
    const file = (await upload(form('demo only', 'd.txt'))).body;

    const cross = await fetch(file.url, { headers: { authorization: `Bearer ${otherToken}` } });
    expect(cross.status).toBe(401);
    expect((await fetch(`${file.url}?token=${otherToken}`)).status).toBe(401);
    const otherApi = `${t.url}/app/other`;
    const there = await fetch(`${otherApi}/storage/${file._id}/download`, { headers: { authorization: `Bearer ${otherToken}` } });
    expect(there.status).toBe(404);
    const list = await fetch(`${otherApi}/storage`, { headers: { authorization: `Bearer ${otherToken}` } });
    expect((await list.json()).meta.total).toBe(0);
    // An in-memory workspace's bytes live in a temporary folder that goes with the workspace.
    const up = await fetch(`${otherApi}/storage/upload`, { method: 'POST', headers: { authorization: `Bearer ${otherToken}` }, body: form('other bytes') });
    const otherFile = await up.json();
    const area = await storageOf(t.srv.ctx).area(t.srv.ctx.registry.require('other'));
    expect(area.temporary).toBe(TEST_DRIVER === 'embedded'); // on PostgreSQL: under --files
    expect(readdirSync(join(area.files))).toEqual([otherFile._id]);
    expect((await t.consoleReq('DELETE', '/workspaces/other')).status).toBe(204);
    expect(existsSync(area.root)).toBe(false);
  });

  it('removes the temporary folder of an in-memory server when it closes', async () => {
    const m = await startTestServer();
    await fetch(`${m.api}/storage/upload`, { method: 'POST', headers: { authorization: `Bearer ${m.adminToken}` }, body: form('bytes') });
    const area = await storageOf(m.srv.ctx).area(m.srv.ctx.registry.require('demo'));
    expect(readdirSync(area.files)).toHaveLength(1);
    await m.close();
    expect(existsSync(area.root)).toBe(false);
  });
});

describe('on disk', () => {
  it('removes .part files left by a killed server at start, before storage is used', async () => {
    const { dir, remove } = tempDataDir();
    const first = await startTestServer({ data: dir });
    expect((await first.consoleReq('POST', '/workspaces', { _id: 'quiet', admin: { email: 'q@example.com', password: 'quiet-pass-1' } })).status).toBe(201);
    await first.close();
    const incoming = join(dir, 'workspaces', 'demo', 'uploads', 'incoming');
    mkdirSync(incoming, { recursive: true });
    writeFileSync(join(incoming, 'Abc123.part'), 'half an upload');
    writeFileSync(join(incoming, 'Def456.part'), 'another');
    const s = await startTestServer({ data: dir });
    try {
      expect(readdirSync(incoming)).toEqual([]);
      // A workspace without an incoming folder is only looked at, not given one.
      expect(existsSync(join(dir, 'workspaces', 'quiet', 'uploads', 'incoming'))).toBe(false);
    } finally {
      await s.close();
      remove();
    }
  });

  it('never writes ignored parts to disk, and the limit covers them', async () => {
    const { dir, remove } = tempDataDir();
    const d = await startTestServer({ data: dir, uploadLimit: 256 * 1024 });
    try {
      const incoming = join(dir, 'workspaces', 'demo', 'uploads', 'incoming');
      // The ignored part arrives slowly: while it is being received nothing is in incoming/.
      const { body } = multiParts([['thumb', 'a.txt', 'T'.repeat(100 * 1024)], ['file', 'b.txt', 'the file']]);
      const socket = connect(Number(new URL(d.url).port), '127.0.0.1');
      await new Promise<void>((r) => socket.once('connect', () => r()));
      let answer = '';
      socket.on('data', (c) => { answer += c.toString(); });
      socket.write(`POST /api/app/demo/storage/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${d.adminToken}\r\n`
        + `Content-Type: multipart/form-data; boundary=hbBoundaryParts9Zq3\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
      socket.write(body.subarray(0, 80 * 1024));
      await new Promise((r) => setTimeout(r, 300));
      expect(readdirSync(incoming)).toEqual([]);
      socket.write(body.subarray(80 * 1024));
      await eventually(() => answer.includes('"size":8')).catch((e) => { throw new Error(`${e} ${answer}`); });
      expect(answer).toMatch(/^HTTP\/1\.1 201/);
      socket.destroy();
      expect(readdirSync(join(dir, 'workspaces', 'demo', 'files'))).toHaveLength(1);

      // Streamed without a declared length, ignored parts over the limit → 413, nothing stored.
      const big = multiParts([['thumb', 'a.txt', 'T'.repeat(400 * 1024)], ['file', 'b.txt', 'small']]);
      const stream = new ReadableStream({ start(c) { c.enqueue(new Uint8Array(big.body)); c.close(); } });
      const streamed = await fetch(`${d.api}/storage/upload`, {
        method: 'POST', headers: { authorization: `Bearer ${d.adminToken}`, ...big.headers }, body: stream, duplex: 'half',
      } as RequestInit);
      expect(streamed.status).toBe(413);
      // And the file part after ignored ones still has the limit.
      const over = multiParts([['thumb', 'a.txt', 'small'], ['file', 'b.txt', 'F'.repeat(300 * 1024)]]);
      const stream2 = new ReadableStream({ start(c) { c.enqueue(new Uint8Array(over.body)); c.close(); } });
      const overRes = await fetch(`${d.api}/storage/upload`, {
        method: 'POST', headers: { authorization: `Bearer ${d.adminToken}`, ...over.headers }, body: stream2, duplex: 'half',
      } as RequestInit);
      expect(overRes.status).toBe(413);
      await eventually(() => readdirSync(incoming).length === 0);
      expect(readdirSync(join(dir, 'workspaces', 'demo', 'files'))).toHaveLength(1);
    } finally {
      await d.close();
      remove();
    }
  });

  it('keeps bytes by id only, and leaves nothing behind over the limit (413)', async () => {
    const { dir, remove } = tempDataDir();
    const d = await startTestServer({ data: dir, uploadLimit: 256 * 1024 });
    try {
      const wsDir = join(dir, 'workspaces', 'demo');
      const ok = await fetch(`${d.api}/storage/upload`, { method: 'POST', headers: { authorization: `Bearer ${d.adminToken}` }, body: form('on disk', '../../evil.txt') });
      expect(ok.status).toBe(201);
      const file = await ok.json();
      expect(readdirSync(join(wsDir, 'files'))).toEqual([file._id]);
      expect(existsSync(join(dir, 'evil.txt'))).toBe(false);

      // The declared length is over the limit: refused before anything is written.
      const big = await fetch(`${d.api}/storage/upload`, { method: 'POST', headers: { authorization: `Bearer ${d.adminToken}` }, body: form(randomBytes(600 * 1024), 'big.bin') });
      expect(big.status).toBe(413);
      expect((await big.json()).error.code).toBe('PAYLOAD_TOO_LARGE');
      // Streamed with no declared length: the limit is hit while writing, and the partial file goes.
      const { body: payload, headers } = rawMultipart('filename="big.bin"', 'X'.repeat(400 * 1024));
      const stream = new ReadableStream({ start(c) { c.enqueue(new Uint8Array(payload)); c.close(); } });
      const streamed = await fetch(`${d.api}/storage/upload`, {
        method: 'POST', headers: { authorization: `Bearer ${d.adminToken}`, ...headers }, body: stream, duplex: 'half',
      } as RequestInit);
      expect(streamed.status).toBe(413);
      await eventually(() => readdirSync(join(wsDir, 'uploads', 'incoming')).length === 0);
      expect(readdirSync(join(wsDir, 'files'))).toEqual([file._id]);
      expect((await d.req('GET', '/storage')).body.meta.total).toBe(1);

      // A client that goes away mid-body leaves no partial file either.
      const { body: part, headers: partHeaders } = rawMultipart('filename="cut.bin"', 'Y'.repeat(100 * 1024));
      const socket = connect(Number(new URL(d.url).port), '127.0.0.1');
      await new Promise<void>((r) => socket.once('connect', () => r()));
      socket.write(`POST /api/app/demo/storage/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${d.adminToken}\r\n`
        + `Content-Type: ${partHeaders['content-type']}\r\nContent-Length: ${part.length}\r\n\r\n`);
      socket.write(part.subarray(0, 60 * 1024));
      await eventually(() => readdirSync(join(wsDir, 'uploads', 'incoming')).length === 1);
      socket.destroy();
      await eventually(() => readdirSync(join(wsDir, 'uploads', 'incoming')).length === 0);
      expect(readdirSync(join(wsDir, 'files'))).toEqual([file._id]);
      expect((await d.req('GET', '/storage')).body.meta.total).toBe(1);
    } finally {
      await d.close();
      remove();
    }
  });
});

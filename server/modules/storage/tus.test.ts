// Resumable uploads with the real tus client (tus-js-client): chunked upload aborted midway and
// resumed from the server's offset, creation-with-upload, termination, auth, ownership, expiry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Upload, type UploadOptions } from 'tus-js-client';
import { startTestServer, tempDataDir, type TestServer } from '../../test/harness.js';
import type { BusEvent } from '../../core/bus.js';
import { checkedFetch } from '../../test/openapi-conformance.js';

let t: TestServer;
let userToken: string;
let otherToken: string;
const events: BusEvent[] = [];
const ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
// The tus requests sent here are checked against the workspace's OpenAPI document, as the
// harness checks its own.
const fetch = checkedFetch(() => t.srv);

function options(token: string, extra: Partial<UploadOptions> = {}): UploadOptions {
  return {
    endpoint: `${t.api}/storage/upload/tus`,
    headers: { Authorization: `Bearer ${token}` },
    retryDelays: null,
    ...extra,
  };
}

/** Runs an upload to completion; resolves with its URL. */
function complete(data: Buffer, opts: UploadOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const up: Upload = new Upload(data, { ...opts, onSuccess: () => resolve(up.url!), onError: reject });
    up.start();
  });
}

async function tusReq(method: string, url: string, token: string | null, headers: Record<string, string> = {}) {
  return fetch(url, { method, headers: { 'Tus-Resumable': '1.0.0', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });
}

async function createUpload(token: string, length: number, metadata = '') {
  return tusReq('POST', `${t.api}/storage/upload/tus`, token, { 'Upload-Length': String(length), ...(metadata ? { 'Upload-Metadata': metadata } : {}) });
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

beforeAll(async () => {
  t = await startTestServer();
  t.srv.ctx.bus.subscribe((e) => { events.push(e); });
  const reg = async (email: string) => (await t.req('POST', '/auth/register', { token: null, body: { email, password: 'user-password-1' } })).body.token as string;
  userToken = await reg('tus-user@example.com');
  otherToken = await reg('tus-other@example.com');
});
afterAll(() => t.close());

describe('tus uploads', () => {
  it('uploads a multi-megabyte file in chunks, survives an abort, resumes from the server offset', async () => {
    const data = randomBytes(6 * 1024 * 1024 + 12345);
    const chunkSize = 512 * 1024;
    const meta = { filename: 'big video.mp4', filetype: 'video/mp4' };

    // First attempt: stop after a few chunks, as a broken connection would.
    let url: string | null = null;
    await new Promise<void>((resolve, reject) => {
      const first: Upload = new Upload(data, options(userToken, {
        chunkSize, metadata: meta,
        onChunkComplete: (_size, accepted) => {
          if (accepted >= 3 * chunkSize && !url) { url = first.url; void first.abort().then(resolve); }
        },
        onSuccess: () => reject(new Error('should have been aborted')),
        onError: reject,
      }));
      first.start();
    });
    expect(url).toMatch(new RegExp(`^${t.api}/storage/upload/tus/[A-Za-z][A-Za-z0-9_-]*$`));
    const id = url!.split('/').pop()!;
    expect(id).toMatch(ID);
    expect((await t.req('GET', `/storage/${id}`)).status).toBe(404); // not a file until complete

    const head = await tusReq('HEAD', url!, userToken);
    expect(head.status).toBe(200);
    const serverOffset = Number(head.headers.get('upload-offset'));
    expect(serverOffset).toBeGreaterThanOrEqual(3 * chunkSize);
    expect(serverOffset).toBeLessThan(data.length);
    expect(head.headers.get('upload-length')).toBe(String(data.length));

    // Second attempt: a new client that only knows the URL asks for the offset and continues.
    let resumedFrom = -1;
    const doneUrl = await complete(data, options(userToken, {
      chunkSize, metadata: meta, uploadUrl: url,
      onAfterResponse: (req, res) => {
        if (req.getMethod() === 'HEAD') resumedFrom = Number(res.getHeader('Upload-Offset'));
      },
    }));
    expect(doneUrl).toBe(url);
    expect(resumedFrom).toBe(serverOffset);

    const info = await t.req('GET', `/storage/${id}`);
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({ _id: id, name: 'big video.mp4', type: 'video/mp4', size: data.length });
    expect(info.body.url).toBe(`${t.api}/storage/${id}/download`);
    expect(events.find((e) => e.type === 'file.uploaded' && e.data._id === id)).toBeTruthy();

    const dl = await fetch(info.body.url, { headers: { authorization: `Bearer ${userToken}` } });
    expect(dl.status).toBe(200);
    expect(dl.headers.get('content-length')).toBe(String(data.length));
    expect(Buffer.from(await dl.arrayBuffer()).equals(data)).toBe(true);

    // The finished upload is no longer a tus resource.
    expect((await tusReq('HEAD', url!, userToken)).status).toBe(404);
  });

  it('finishes in the creation request (creation-with-upload) and owns the file to the uploader', async () => {
    const data = Buffer.from('small file sent with the creation request');
    const url = await complete(data, options(userToken, { uploadDataDuringCreation: true, metadata: { filename: '../../etc/passwd', filetype: 'text/plain', owner: 'someone-else' } }));
    const id = url.split('/').pop()!;
    const info = await t.req('GET', `/storage/${id}`);
    expect(info.body).toMatchObject({ _id: id, name: 'passwd', size: data.length, type: 'text/plain' });
    const me = await t.req('GET', '/auth/me', { token: userToken });
    expect(info.body._owner).toBe(me.body._id);
  });

  it('accepts an empty file', async () => {
    const url = await complete(Buffer.alloc(0), options(userToken, { metadata: { filename: 'empty.txt' } }));
    const info = await t.req('GET', `/storage/${url.split('/').pop()}`);
    expect(info.body).toMatchObject({ size: 0, name: 'empty.txt', type: 'application/octet-stream' });
  });

  it('answers the protocol: Location, Tus-Resumable, Upload-Expires, OPTIONS', async () => {
    const created = await createUpload(userToken, 10, `filename ${b64('a.txt')}`);
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toMatch(new RegExp(`^${t.api}/storage/upload/tus/[A-Za-z][A-Za-z0-9_-]*$`));
    expect(created.headers.get('tus-resumable')).toBe('1.0.0');
    expect(created.headers.get('upload-expires')).toBeTruthy();
    const opts = await fetch(`${t.api}/storage/upload/tus`, { method: 'OPTIONS' });
    expect(opts.status).toBe(204);
    expect(opts.headers.get('tus-extension')).toContain('termination');
    expect(opts.headers.get('tus-extension')).toContain('expiration');
    const noVersion = await fetch(`${t.api}/storage/upload/tus`, { method: 'POST', headers: { authorization: `Bearer ${userToken}`, 'Upload-Length': '1' } });
    expect(noVersion.status).toBe(412);
  });

  it('answers errors in the contract shape, except the tus-only statuses (plain text)', async () => {
    const patch = (url: string, offset: string, extra: Record<string, string> = {}) => fetch(url, { method: 'PATCH', headers: { 'Tus-Resumable': '1.0.0', authorization: `Bearer ${userToken}`, 'Upload-Offset': offset, 'Content-Type': 'application/offset+octet-stream', ...extra }, body: 'x' });
    const missing = await patch(`${t.api}/storage/upload/tus/Nope123`, '0');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await missing.json()).error).toMatchObject({ code: 'NOT_FOUND', details: {} });
    const url = (await createUpload(userToken, 10)).headers.get('location')!;
    const conflict = await patch(url, '5');
    expect(conflict.status).toBe(409);
    expect((await conflict.json()).error.code).toBe('CONFLICT');
    const noLength = await tusReq('POST', `${t.api}/storage/upload/tus`, userToken);
    expect(noLength.status).toBe(400);
    expect((await noLength.json()).error.code).toBe('BAD_REQUEST');
    const noVersion = await fetch(url, { method: 'PATCH', headers: { authorization: `Bearer ${userToken}`, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' }, body: 'x' });
    expect(noVersion.status).toBe(412);
    expect(noVersion.headers.get('content-type') ?? '').not.toMatch(/json/);
    await noVersion.text();
  });

  it('exposes the app\'s CORS headers and tus\'s own on every tus response', async () => {
    const origin = { Origin: 'http://localhost:5173' };
    const appList = (await fetch(`${t.api}/storage`, { headers: { authorization: `Bearer ${userToken}`, ...origin } })).headers.get('access-control-expose-headers')!;
    const names = (v: string | null) => new Set((v ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean));
    const app = names(appList);
    expect(app.has('upload-expires')).toBe(true);
    const check = (res: Response) => {
      const exposed = names(res.headers.get('access-control-expose-headers'));
      for (const h of [...app, 'upload-expires', 'upload-offset', 'location', 'tus-resumable', 'upload-concat']) expect(exposed, h).toContain(h);
    };
    const created = await tusReq('POST', `${t.api}/storage/upload/tus`, userToken, { 'Upload-Length': '10', ...origin });
    expect(created.status).toBe(201);
    expect(created.headers.get('upload-expires')).toBeTruthy();
    check(created);
    const url = created.headers.get('location')!;
    const head = await tusReq('HEAD', url, userToken, origin);
    expect(head.status).toBe(200);
    check(head);
    const patch = await fetch(url, { method: 'PATCH', headers: { 'Tus-Resumable': '1.0.0', authorization: `Bearer ${userToken}`, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream', ...origin }, body: 'abc' });
    expect(patch.status).toBe(204);
    check(patch);
    const conflict = await fetch(url, { method: 'PATCH', headers: { 'Tus-Resumable': '1.0.0', authorization: `Bearer ${userToken}`, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream', ...origin }, body: 'abc' });
    expect(conflict.status).toBe(409);
    check(conflict);
    const noVersion = await fetch(url, { method: 'HEAD', headers: { authorization: `Bearer ${userToken}`, ...origin } });
    expect(noVersion.status).toBe(412);
    check(noVersion);
    // No duplicates in the list.
    const raw = (created.headers.get('access-control-expose-headers') ?? '').split(',').map((h) => h.trim().toLowerCase());
    expect(raw.length).toBe(new Set(raw).size);
    check(await fetch(`${t.api}/storage/upload/tus`, { method: 'OPTIONS', headers: origin }));
  });

  it('terminates an upload with DELETE', async () => {
    const url = (await createUpload(userToken, 100)).headers.get('location')!;
    const patch = await fetch(url, { method: 'PATCH', headers: { 'Tus-Resumable': '1.0.0', authorization: `Bearer ${userToken}`, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' }, body: 'x'.repeat(40) });
    expect(patch.status).toBe(204);
    expect(patch.headers.get('upload-offset')).toBe('40');
    const conflict = await fetch(url, { method: 'PATCH', headers: { 'Tus-Resumable': '1.0.0', authorization: `Bearer ${userToken}`, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' }, body: 'x' });
    expect(conflict.status).toBe(409);
    expect((await tusReq('DELETE', url, userToken)).status).toBe(204);
    expect((await tusReq('HEAD', url, userToken)).status).toBe(404);
  });

  it('needs a token on every request, of this workspace, and the uploader (or an admin) to continue', async () => {
    expect((await createUpload('', 10)).status).toBe(401);
    const anon = await fetch(`${t.api}/storage/upload/tus`, { method: 'POST', headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': '10' } });
    expect(anon.status).toBe(401);
    expect((await anon.json()).error.code).toBe('UNAUTHORIZED');

    const url = (await createUpload(userToken, 10)).headers.get('location')!;
    expect((await tusReq('HEAD', url, null)).status).toBe(401);
    expect((await tusReq('HEAD', url, 'bad.token.value')).status).toBe(401);
    const foreign = await tusReq('HEAD', url, otherToken);
    expect(foreign.status).toBe(403);
    expect((await tusReq('DELETE', url, otherToken)).status).toBe(403);
    expect((await tusReq('HEAD', url, t.adminToken)).status).toBe(200);

    await t.consoleReq('POST', '/workspaces', { _id: 'elsewhere', admin: { email: 'e@example.com', password: 'elsewhere-pass-1' } });
    const elsewhere = (await t.consoleReq('POST', '/workspaces/elsewhere/token')).body.token as string;
    expect((await tusReq('HEAD', url, elsewhere)).status).toBe(401);
    // The same id under another workspace is another (missing) upload.
    expect((await tusReq('HEAD', url.replace('/app/demo/', '/app/elsewhere/'), elsewhere)).status).toBe(404);
    await t.consoleReq('DELETE', '/workspaces/elsewhere');
  });

  it('never resolves a crafted id to a path', async () => {
    for (const bad of ['..%2F..%2Fetc%2Fpasswd', '%2E%2E', 'a%00b']) {
      const res = await tusReq('HEAD', `${t.api}/storage/upload/tus/${bad}`, userToken);
      expect([400, 404]).toContain(res.status);
    }
  });
});

describe('tus expiry', () => {
  it('removes abandoned partial uploads once they expire', async () => {
    const { dir, remove } = tempDataDir();
    const s = await startTestServer({ data: dir, uploadExpiry: 1000 });
    try {
      const created = await fetch(`${s.api}/storage/upload/tus`, { method: 'POST', headers: { 'Tus-Resumable': '1.0.0', authorization: `Bearer ${s.adminToken}`, 'Upload-Length': '100' } });
      expect(created.status).toBe(201);
      const id = created.headers.get('location')!.split('/').pop()!;
      const tusDir = join(dir, 'workspaces', 'demo', 'uploads', 'tus');
      expect(readdirSync(tusDir).sort()).toEqual([id, `${id}.json`].sort());
      // A finished upload leaves the tus folder for the files folder.
      const data = randomBytes(20_000); // one request, well inside the short expiry
      const doneUrl = await new Promise<string>((resolve, reject) => {
        const up: Upload = new Upload(data, { endpoint: `${s.api}/storage/upload/tus`, headers: { Authorization: `Bearer ${s.adminToken}` }, uploadDataDuringCreation: true, retryDelays: null, onSuccess: () => resolve(up.url!), onError: reject });
        up.start();
      });
      const doneId = doneUrl.split('/').pop()!;
      expect(readdirSync(join(dir, 'workspaces', 'demo', 'files'))).toEqual([doneId]);
      const until = Date.now() + 10_000;
      while (readdirSync(tusDir).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(readdirSync(tusDir)).toEqual([]);
      const head = await fetch(created.headers.get('location')!, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0', authorization: `Bearer ${s.adminToken}` } });
      expect([404, 410]).toContain(head.status);
    } finally {
      await s.close();
      remove();
    }
  });
});

describe('tus uploads and replaced workspace content', () => {
  /** Starts an upload of 100 bytes and sends the first 40. */
  async function partial(s: TestServer, token: string): Promise<string> {
    const created = await fetch(`${s.api}/storage/upload/tus`, { method: 'POST', headers: { 'Tus-Resumable': '1.0.0', authorization: `Bearer ${token}`, 'Upload-Length': '100', 'Upload-Metadata': `filename ${b64('half.bin')}` } });
    expect(created.status).toBe(201);
    const url = created.headers.get('location')!;
    const patch = await fetch(url, { method: 'PATCH', headers: { 'Tus-Resumable': '1.0.0', authorization: `Bearer ${token}`, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' }, body: 'x'.repeat(40) });
    expect(patch.status).toBe(204);
    return url;
  }

  /** The upload is gone: folder empty, HEAD 404, the rest of the bytes cannot complete it. */
  async function expectGone(s: TestServer, dir: string, url: string) {
    const token = (await s.consoleReq('POST', '/workspaces/demo/token')).body.token as string;
    const id = url.split('/').pop()!;
    const ws = join(dir, 'workspaces', 'demo');
    expect(readdirSync(join(ws, 'uploads', 'tus'))).toEqual([]);
    const head = await fetch(url, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0', authorization: `Bearer ${token}` } });
    expect(head.status).toBe(404);
    const rest = await fetch(url, { method: 'PATCH', headers: { 'Tus-Resumable': '1.0.0', authorization: `Bearer ${token}`, 'Upload-Offset': '40', 'Content-Type': 'application/offset+octet-stream' }, body: 'y'.repeat(60) });
    expect(rest.status).toBe(404);
    expect((await s.req('GET', `/storage/${id}`, { token })).status).toBe(404);
    expect(readdirSync(join(ws, 'files'))).toEqual([]);
    // A new upload still works afterwards (a fresh tus server over the same folder).
    const again = await complete(Buffer.from('after'), { endpoint: `${s.api}/storage/upload/tus`, headers: { Authorization: `Bearer ${token}` }, retryDelays: null });
    expect((await s.req('GET', `/storage/${again.split('/').pop()}`, { token })).body).toMatchObject({ size: 5 });
  }

  it('reset removes unfinished uploads', async () => {
    const { dir, remove } = tempDataDir();
    const s = await startTestServer({ data: dir });
    try {
      const url = await partial(s, s.adminToken);
      expect((await s.consoleReq('POST', '/workspaces/demo/reset', {})).status).toBe(200);
      await expectGone(s, dir, url);
    } finally {
      await s.close();
      remove();
    }
  });

  it('snapshot restore removes unfinished uploads', async () => {
    const { dir, remove } = tempDataDir();
    const s = await startTestServer({ data: dir });
    try {
      expect((await s.consoleReq('POST', '/workspaces/demo/snapshots', { name: 'empty' })).status).toBe(201);
      const url = await partial(s, s.adminToken);
      expect((await s.consoleReq('POST', '/workspaces/demo/snapshots/empty/restore')).status).toBe(200);
      await expectGone(s, dir, url);
    } finally {
      await s.close();
      remove();
    }
  });
});

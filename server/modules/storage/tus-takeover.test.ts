// Another user must not be able to reach an unfinished resumable upload by spelling its URL
// differently: user A uploads with tus-js-client and stops midway; user B sends HEAD, PATCH and
// DELETE to crafted URLs that end in A's upload id (percent-encoded, in a query string, after a
// valid id of B's choosing, after further segments, with a trailing slash). Every one is refused
// (404 in the error shape, or 403), and A's upload is untouched: same offset, same metadata, and
// it completes with exactly A's bytes. Also: a PATCH with the wrong Content-Type is 415.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { Upload } from 'tus-js-client';
import { startTestServer, type TestServer, type TestUser } from '../../test/harness.js';

let t: TestServer;
let alice: TestUser;
let bob: TestUser;
const CHUNK = 64 * 1024;

beforeAll(async () => {
  t = await startTestServer();
  alice = await t.user('Alice');
  bob = await t.user('Bob');
});
afterAll(() => t.close());

const tusBase = () => `${t.api}/storage/upload/tus`;

/** A's upload, stopped after the first chunk: its URL and id. */
async function halfUpload(data: Buffer): Promise<{ url: string; id: string }> {
  let url: string | null = null;
  await new Promise<void>((resolve, reject) => {
    const up: Upload = new Upload(data, {
      endpoint: tusBase(), headers: { Authorization: `Bearer ${alice.token}` }, retryDelays: null, chunkSize: CHUNK,
      metadata: { filename: 'alice.bin', filetype: 'application/octet-stream' },
      onChunkComplete: (_size, accepted) => { if (accepted >= CHUNK && !url) { url = up.url; void up.abort().then(resolve); } },
      onSuccess: () => reject(new Error('should have been aborted')),
      onError: reject,
    });
    up.start();
  });
  return { url: url!, id: url!.split('/').pop()! };
}

const percentAll = (s: string) => [...s].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');

/** URLs that name A's upload to a tus server reading the id from the end of the whole URL. */
function craftedUrls(id: string): Record<string, string> {
  const base = tusBase();
  return {
    'first character percent-encoded': `${base}/%${id.charCodeAt(0).toString(16).toUpperCase()}${id.slice(1)}`,
    'every character percent-encoded': `${base}/${percentAll(id)}`,
    'id in a query string': `${base}?x=/${id}`,
    'id in a query string after another id': `${base}/Bobs1upload?x=/${id}`,
    'id after further segments': `${base}/x/${id}`,
    'id after an encoded slash': `${base}/x%2F${id}`,
    'trailing slash': `${base}/${id}/`,
    'upper-case route': `${t.api}/storage/upload/TUS/${id}`,
  };
}

const tus = (method: string, url: string, token: string, headers: Record<string, string> = {}, body?: string) =>
  fetch(url, { method, headers: { 'Tus-Resumable': '1.0.0', authorization: `Bearer ${token}`, ...headers }, body });

describe('tus: another user cannot take over an unfinished upload', () => {
  it('refuses HEAD, PATCH and DELETE by user B on every spelling of A\'s upload URL; A\'s upload is untouched', async () => {
    const data = randomBytes(3 * CHUNK + 1234);
    const { url, id } = await halfUpload(data);
    const before = await tus('HEAD', url, alice.token);
    expect(before.status).toBe(200);
    const offset = before.headers.get('upload-offset');
    expect(Number(offset)).toBeGreaterThanOrEqual(CHUNK);

    // The plain URL: B is refused as before.
    expect((await tus('HEAD', url, bob.token)).status).toBe(403);

    for (const [name, crafted] of Object.entries(craftedUrls(id))) {
      const head = await tus('HEAD', crafted, bob.token);
      expect(head.status, `HEAD, ${name}`).toBe(404);
      expect(head.headers.get('upload-length'), `HEAD, ${name}`).toBeNull();
      expect(head.headers.get('upload-metadata'), `HEAD, ${name}`).toBeNull();

      const patch = await tus('PATCH', crafted, bob.token, { 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' }, 'B'.repeat(100));
      expect(patch.status, `PATCH, ${name}`).toBe(404);
      const body = await patch.json();
      expect(body.error, `PATCH, ${name}`).toMatchObject({ code: 'NOT_FOUND' });
      expect(patch.headers.get('upload-offset'), `PATCH, ${name}`).toBeNull();

      const del = await tus('DELETE', crafted, bob.token);
      expect(del.status, `DELETE, ${name}`).toBe(404);
      expect((await del.json()).error.code, `DELETE, ${name}`).toBe('NOT_FOUND');
    }

    // A's upload: same offset and metadata, and it completes with exactly A's bytes.
    const after = await tus('HEAD', url, alice.token);
    expect(after.status).toBe(200);
    expect(after.headers.get('upload-offset')).toBe(offset);
    expect(after.headers.get('upload-metadata')).toBe(before.headers.get('upload-metadata'));
    const done = await new Promise<string>((resolve, reject) => {
      const up: Upload = new Upload(data, {
        endpoint: tusBase(), uploadUrl: url, headers: { Authorization: `Bearer ${alice.token}` }, retryDelays: null, chunkSize: CHUNK,
        onSuccess: () => resolve(up.url!), onError: reject,
      });
      up.start();
    });
    expect(done).toBe(url);
    const info = await t.req('GET', `/storage/${id}`, { token: alice.token });
    expect(info.body).toMatchObject({ _id: id, size: data.length, _owner: alice._id });
    const dl = await fetch(`${t.api}/storage/${id}/download`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(Buffer.from(await dl.arrayBuffer()).equals(data)).toBe(true);
  });

  it('the uploader too must use the canonical URL; the creation URL only creates', async () => {
    const { url, id } = await halfUpload(randomBytes(2 * CHUNK));
    for (const [name, crafted] of Object.entries(craftedUrls(id))) {
      expect((await tus('HEAD', crafted, alice.token)).status, name).toBe(404);
    }
    // HEAD / PATCH / DELETE on the creation URL, and POST on an upload's URL, name nothing.
    expect((await tus('HEAD', tusBase(), alice.token)).status).toBe(404);
    expect((await tus('DELETE', tusBase(), alice.token)).status).toBe(404);
    const post = await tus('POST', url, alice.token, { 'Upload-Length': '10' });
    expect(post.status).toBe(404);
    expect((await post.json()).error.code).toBe('NOT_FOUND');
    // The canonical URL works, a query string on it is ignored, and a trailing slash on the
    // creation URL is fine.
    expect((await tus('HEAD', url, alice.token)).status).toBe(200);
    expect((await tus('HEAD', `${url}?cache=1`, alice.token)).status).toBe(200);
    expect((await tus('POST', `${tusBase()}/`, alice.token, { 'Upload-Length': '10' })).status).toBe(201);
    expect((await tus('DELETE', url, alice.token)).status).toBe(204);
  });
});

describe('tus: PATCH content type', () => {
  it('answers 415 UNSUPPORTED_MEDIA_TYPE for a PATCH with another or no Content-Type, and applies nothing', async () => {
    const created = await tus('POST', tusBase(), alice.token, { 'Upload-Length': '10' });
    expect(created.status).toBe(201);
    const url = created.headers.get('location')!;
    for (const type of ['application/json', 'text/plain', 'application/offset+octet-stream; charset=utf-8', undefined]) {
      const res = await tus('PATCH', url, alice.token, { 'Upload-Offset': '0', ...(type ? { 'Content-Type': type } : {}) }, type ? 'abc' : undefined);
      expect(res.status, String(type)).toBe(415);
      expect((await res.json()).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    expect((await tus('HEAD', url, alice.token)).headers.get('upload-offset')).toBe('0');
    const ok = await tus('PATCH', url, alice.token, { 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' }, 'abc');
    expect(ok.status).toBe(204);
    expect(ok.headers.get('upload-offset')).toBe('3');
  });
});

// A file's `url` names the server by its own address (or its configured public URL), never by
// the request's Host header: a client sending `Host: 203.0.113.7:8666` (an IP literal, which the
// DNS-rebinding guard lets through) must not plant that address in the upload's answer, in later
// reads, or in the `file.uploaded` webhook that other parties receive.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestUser } from '../../test/harness.js';
import { startReceiver, waitFor, type Receiver } from '../../test/receiver.js';

const FORGED = '203.0.113.7:8666';
let t: TestServer;
let user: TestUser;
let rx: Receiver;

beforeAll(async () => {
  t = await startTestServer();
  user = await t.user('Uploader');
  rx = await startReceiver();
  const hook = await t.req('POST', '/webhooks', { body: { name: 'files', url: `${rx.url}/hook`, events: ['file.*'] } });
  expect(hook.status, hook.text).toBe(201);
});
afterAll(async () => { await rx.close(); await t.close(); });

/** A request with a Host header of our choosing (fetch does not let one set it). */
function send(method: string, url: string, headers: Record<string, string>, body?: Buffer | string): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function multipart(name: string, content: string): { body: Buffer; type: string } {
  const boundary = 'hbBoundary7d93';
  const body = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n${content}\r\n--${boundary}--\r\n`);
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

const own = (id: string) => `${t.url}/app/demo/storage/${id}/download`;

describe('file url', () => {
  it('a simple upload with a forged Host: the answer, reads, lists and the webhook carry the server\'s own address', async () => {
    const { body, type } = multipart('forged.txt', 'hello');
    const up = await send('POST', `${t.api}/storage/upload`, { host: FORGED, authorization: `Bearer ${user.token}`, 'content-type': type, 'content-length': String(body.length) }, body);
    expect(up.status, up.text).toBe(201);
    const file = JSON.parse(up.text);
    expect(file.url).toBe(own(file._id));

    const one = await send('GET', `${t.api}/storage/${file._id}`, { host: FORGED, authorization: `Bearer ${user.token}` });
    expect(JSON.parse(one.text).url).toBe(own(file._id));
    const list = await send('GET', `${t.api}/storage?filter[_id]=${file._id}`, { host: FORGED, authorization: `Bearer ${user.token}` });
    expect(JSON.parse(list.text).data[0].url).toBe(own(file._id));

    const delivery = await waitFor(() => rx.received.find((r) => r.body.includes(file._id) && r.body.includes('file.uploaded')), 10_000, 'the file.uploaded webhook');
    expect(delivery.body).toContain(JSON.stringify(own(file._id)));
    expect(delivery.body).not.toContain('203.0.113.7');

    const del = await send('DELETE', `${t.api}/storage/${file._id}`, { host: FORGED, authorization: `Bearer ${user.token}` });
    expect(del.status).toBe(204);
    const deleted = await waitFor(() => rx.received.find((r) => r.body.includes(file._id) && r.body.includes('file.deleted')), 10_000, 'the file.deleted webhook');
    expect(deleted.body).toContain(JSON.stringify(own(file._id)));
    expect(deleted.body).not.toContain('203.0.113.7');
  });

  it('a tus upload finished with a forged Host: the file object and its webhook carry the server\'s own address', async () => {
    const data = 'tus bytes with a forged host';
    const created = await send('POST', `${t.api}/storage/upload/tus`, {
      host: FORGED, authorization: `Bearer ${user.token}`, 'tus-resumable': '1.0.0', 'upload-length': String(data.length),
      'content-type': 'application/offset+octet-stream', 'content-length': String(data.length),
    }, data);
    expect(created.status, created.text).toBe(201);
    const id = String(created.headers.location).split('/').pop()!;
    const info = await t.req('GET', `/storage/${id}`, { token: user.token });
    expect(info.body).toMatchObject({ _id: id, size: data.length, url: own(id) });
    const delivery = await waitFor(() => rx.received.find((r) => r.body.includes(id) && r.body.includes('file.uploaded')), 10_000, 'the file.uploaded webhook');
    expect(delivery.body).toContain(JSON.stringify(own(id)));
    expect(delivery.body).not.toContain('203.0.113.7');
  });

  it('with a public URL configured, files are named by it', async () => {
    const s = await startTestServer({ publicUrl: 'https://files.example.com/base/' });
    try {
      const { body, type } = multipart('public.txt', 'hi');
      const up = await send('POST', `${s.api}/storage/upload`, { host: FORGED, authorization: `Bearer ${s.adminToken}`, 'content-type': type, 'content-length': String(body.length) }, body);
      expect(up.status, up.text).toBe(201);
      const file = JSON.parse(up.text);
      expect(file.url).toBe(`https://files.example.com/base/api/app/demo/storage/${file._id}/download`);
    } finally {
      await s.close();
    }
  });

  it('refuses a public URL that is not an http(s) URL', async () => {
    for (const bad of ['files.example.com', 'ftp://files.example.com', 'https://files.example.com/?a=1']) {
      await expect(startTestServer({ publicUrl: bad }), bad).rejects.toThrow(/publicUrl/);
    }
  });
});

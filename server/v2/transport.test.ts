// v2 transport over HTTP: brotli and gzip above 1 KiB (downloads and tus left alone), and the
// per-caller rate limit with its headers, its 429, `rateLimit: 0` and the --rate-limit flag.
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test/harness.js';
import { serveJson } from '../test/spawn.js';
import { makeCollection, v2Client } from './v2-client.js';

/** A GET whose body is read as sent (fetch would decompress it). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}

describe('compression', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
    await makeCollection(t, 'docs');
    for (let i = 0; i < 20; i++) await t.req('POST', '/database/docs', { body: { title: `a fairly long title number ${i} to make the page bigger than a kibibyte` } });
  });
  afterAll(async () => { await t?.close(); });

  it('answers brotli or gzip above 1 KiB as asked, with Vary: Accept-Encoding; small answers and identity stay plain', async () => {
    const url = `${t.url}/v2/app/demo/database/docs`;
    const auth = { authorization: `Bearer ${t.adminToken}` };
    const plain = await rawGet(url, { ...auth, 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1024);
    const page = JSON.parse(plain.body.toString());
    expect(page.data).toHaveLength(20);

    const br = await rawGet(url, { ...auth, 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/Accept-Encoding/);
    expect(br.body.length).toBeLessThan(plain.body.length);
    expect(JSON.parse(brotliDecompressSync(br.body).toString()).data).toEqual(page.data);

    const gz = await rawGet(url, { ...auth, 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gz.body).toString()).data).toEqual(page.data);

    const small = await rawGet(`${url}?limit=1`, { ...auth, 'accept-encoding': 'br' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.vary).toMatch(/Accept-Encoding/);
    // v1 is not compressed.
    const v1 = await rawGet(`${t.api}/database/docs`, { ...auth, 'accept-encoding': 'br' });
    expect(v1.headers['content-encoding']).toBeUndefined();
  });

  it('leaves downloads as they are', async () => {
    const form = new FormData();
    const content = 'x'.repeat(5000);
    form.append('file', new Blob([content], { type: 'text/plain' }), 'big.txt');
    const up = await fetch(`${t.api}/storage/upload`, { method: 'POST', body: form, headers: { authorization: `Bearer ${t.adminToken}` } });
    const file = await up.json();
    const down = await rawGet(`${t.url}/v2/app/demo/storage/${file._id}/download`, { authorization: `Bearer ${t.adminToken}`, 'accept-encoding': 'br, gzip' });
    expect(down.status).toBe(200);
    expect(down.headers['content-encoding']).toBeUndefined();
    expect(down.headers['content-length']).toBe('5000');
    expect(down.body.toString()).toBe(content);
  });
});

describe('rate limit', () => {
  let t: TestServer;
  beforeAll(async () => { t = await startTestServer({ rateLimit: 3 }); });
  afterAll(async () => { await t?.close(); });

  it('counts per caller per minute, with X-RateLimit-* headers, then 429 RATE_LIMITED with Retry-After', async () => {
    const v2 = v2Client(t);
    const user = await t.user('Limited');
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await v2('GET', '/auth/me', { token: user.token });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('3');
      seen.push(res.headers.get('x-ratelimit-remaining')!);
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(60);
    }
    expect(seen).toEqual(['2', '1', '0']);
    const over = await v2('GET', '/auth/me', { token: user.token });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('RATE_LIMITED');
    expect(over.body.meta.version).toBe('2');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    // Another caller has its own budget; v1 is not limited and carries no headers.
    const admin = await v2('GET', '/auth/me');
    expect(admin.status).toBe(200);
    expect(admin.headers.get('x-ratelimit-remaining')).toBe('2');
    const v1 = await t.req('GET', '/auth/me', { token: user.token });
    expect(v1.status).toBe(200);
    expect(v1.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('counts anonymous callers by address, refused requests included', async () => {
    const v2 = v2Client(t);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await v2('GET', '/auth/me', { token: null })).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it('rateLimit 0 means no limit and no headers', async () => {
    const off = await startTestServer({ rateLimit: 0 });
    try {
      const v2 = v2Client(off);
      for (let i = 0; i < 5; i++) {
        const res = await v2('GET', '/auth/me');
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-limit')).toBeNull();
      }
    } finally { await off.close(); }
  });

  it('--rate-limit N sets it from the command line', async () => {
    const { child, line } = await serveJson(['--port', '0', '--in-memory', '--admin-password', 'secret-pass-1', '--rate-limit', '2']);
    try {
      const get = () => fetch(`${line.url}/v2/app/demo/auth/me`);
      expect((await get()).headers.get('x-ratelimit-limit')).toBe('2');
      expect((await get()).status).toBe(401);
      const third = await get();
      expect(third.status).toBe(429);
    } finally { child.kill('SIGTERM'); }
  });
});

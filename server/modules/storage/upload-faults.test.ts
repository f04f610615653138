// A simple (multipart) upload on a disk that refuses writes answers like every other write: a
// folder that cannot be written (read-only file system, no permission) is 503 UNAVAILABLE naming
// the folder and what to do, a full disk 507; nothing is left behind (no file object, no event,
// no temporary file), and uploads work again once the disk recovers. Faults are injected in the
// storage layer's file-system module, so the test runs without root.
import { readdir } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { injectDiskFault } from '../../storage/disk.js';
import type { BusEvent } from '../../core/bus.js';
import { storageOf, type FileArea } from './service.js';

let t: TestServer;
let area: FileArea;
const events: BusEvent[] = [];

beforeAll(async () => {
  t = await startTestServer();
  area = await storageOf(t.srv.ctx).area(t.srv.ctx.registry.require('demo'));
  t.srv.ctx.bus.subscribe((e) => { events.push(e); });
});
afterEach(() => injectDiskFault(undefined));
afterAll(async () => { injectDiskFault(undefined); await t.close(); });

function upload(name = 'a.txt', content = 'hello there') {
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/plain' }), name);
  return fetch(`${t.api}/storage/upload`, { method: 'POST', headers: { authorization: `Bearer ${t.adminToken}` }, body: form });
}

async function expectNothingLeft(before: number) {
  expect((await t.req('GET', '/storage?limit=0')).body.meta.total).toBe(before);
  expect(events.filter((e) => e.type === 'file.uploaded')).toHaveLength(0);
  expect((await readdir(area.incoming)).filter((n) => n.endsWith('.part'))).toEqual([]);
}

describe('a simple upload on a disk that refuses writes', () => {
  for (const code of ['EROFS', 'EACCES', 'EPERM']) {
    it(`${code} on the incoming folder: 503 UNAVAILABLE naming the folder; nothing stored`, async () => {
      const before = (await t.req('GET', '/storage?limit=0')).body.meta.total as number;
      events.length = 0;
      injectDiskFault({ code, path: 'incoming' });
      const res = await upload();
      expect(res.status).toBe(503);
      const body = await res.json();
      expect(body.error.code).toBe('UNAVAILABLE');
      expect(body.error.message).toMatch(/cannot be written.*writable/);
      expect(body.error.details.folder).toBe(area.incoming);
      expect(res.headers.get('retry-after')).toBe('5');
      await expectNothingLeft(before);
    });
  }

  it('EROFS when the file is moved into the files folder: 503 naming that folder; nothing stored', async () => {
    const before = (await t.req('GET', '/storage?limit=0')).body.meta.total as number;
    events.length = 0;
    injectDiskFault({ code: 'EROFS', path: area.files, ops: ['rename'] });
    const res = await upload();
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body.error).toMatchObject({ code: 'UNAVAILABLE', details: { folder: area.files } });
    await expectNothingLeft(before);
    expect(await readdir(area.files)).toHaveLength(before);
  });

  it('a full disk: 507 INSUFFICIENT_STORAGE', async () => {
    injectDiskFault({ code: 'ENOSPC', path: 'incoming' });
    const res = await upload();
    expect(res.status).toBe(507);
    expect((await res.json()).error.code).toBe('INSUFFICIENT_STORAGE');
  });

  it('uploads work again once the folder is writable', async () => {
    injectDiskFault({ code: 'EROFS', path: 'incoming' });
    expect((await upload()).status).toBe(503);
    injectDiskFault(undefined);
    const ok = await upload('back.txt', 'back');
    expect(ok.status).toBe(201);
    const file = await ok.json();
    const dl = await fetch(file.url, { headers: { authorization: `Bearer ${t.adminToken}` } });
    expect(await dl.text()).toBe('back');
  });
});

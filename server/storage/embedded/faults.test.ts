// A disk that refuses writes (a full disk is 507 insufficient_storage, a read-only one 503;
// no acknowledged write is lost), injected in the storage layer's one file-system
// module (disk.ts), so it runs without root: a full disk answers 507, a read-only or forbidden
// folder 503, naming the folder; the refused change leaves no trace (GET, lists, the file, a
// restart); reads keep working; writes resume by themselves once the disk recovers.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestServer, tempDataDir, type TestServer } from '../../test/harness.js';
import { waitFor } from '../../test/receiver.js';
import { injectDiskFault } from '../disk.js';
import { DocStore } from './doc-store.js';

let t: TestServer;
const data = tempDataDir('hb-faults-');
const recordsFile = () => join(data.dir, 'workspaces', 'demo', 'collections', 'notes.db');

beforeAll(async () => {
  t = await startTestServer({ data: data.dir });
  expect((await t.req('POST', '/database', { body: { _id: 'notes', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
});
afterEach(() => injectDiskFault(undefined));
afterAll(async () => { injectDiskFault(undefined); await t.close(); data.remove(); });

const total = async () => (await t.req('GET', '/database/notes?limit=0')).body.meta.total as number;

describe('a full disk', () => {
  it('answers 507, applies nothing, leaves no partial line, and resumes once space is back', async () => {
    const kept = await t.req('POST', '/database/notes', { body: { _id: 'kept', text: 'before' } });
    expect(kept.status).toBe(201);
    const before = await total();
    // The create's event is marked settled (no webhook owes it anything) in a line appended a
    // moment later: wait for it, so the file read here is the one the refused writes must keep.
    await waitFor(async () => (await readFile(recordsFile(), 'utf8')).includes('$$settled'), 5000, 'the settled mark');
    const fileBefore = await readFile(recordsFile(), 'utf8');

    injectDiskFault({ code: 'ENOSPC', path: 'notes.db' });
    const create = await t.req('POST', '/database/notes', { body: { _id: 'lost', text: 'x'.repeat(5000) } });
    expect(create.status).toBe(507);
    expect(create.body.error.code).toBe('INSUFFICIENT_STORAGE');
    expect(create.body.error.message).toContain(join(data.dir, 'workspaces', 'demo', 'collections'));
    const update = await t.req('PUT', '/database/notes/kept', { body: { text: 'after' } });
    expect(update.status).toBe(507);
    const del = await t.req('DELETE', '/database/notes/kept');
    expect(del.status).toBe(507);

    // No trace: not in GET, not in lists, not in the file; reads work.
    expect((await t.req('GET', '/database/notes/lost')).status).toBe(404);
    expect((await t.req('GET', '/database/notes/kept')).body.text).toBe('before');
    expect(await total()).toBe(before);
    expect(await readFile(recordsFile(), 'utf8')).toBe(fileBefore);

    // Space is back: the next write goes through, on a line of its own.
    injectDiskFault(undefined);
    const after = await t.req('POST', '/database/notes', { body: { _id: 'after', text: 'y' } });
    expect(after.status).toBe(201);
    const lines = (await readFile(recordsFile(), 'utf8')).trimEnd().split('\n');
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('the N-th write fails: earlier ones stand, later ones are refused, none is half-applied', async () => {
    injectDiskFault({ code: 'ENOSPC', path: 'notes.db', nth: 3 });
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push((await t.req('POST', '/database/notes', { body: { _id: `n${i}` } })).status);
    expect(answers).toEqual([201, 201, 507, 507, 507]);
    for (let i = 0; i < 5; i++) expect((await t.req('GET', `/database/notes/n${i}`)).status).toBe(i < 2 ? 200 : 404);
  });

  it('settings (the schema) answer 507 and keep their previous content', async () => {
    injectDiskFault({ code: 'ENOSPC', path: 'settings.json' });
    const res = await t.req('POST', '/database', { body: { _id: 'nope', setting: { read: 'private', write: 'private', update: 'private' } } });
    expect(res.status).toBe(507);
    injectDiskFault(undefined);
    expect((await t.req('GET', '/database/nope')).status).toBe(404);
    expect((await t.req('POST', '/database', { body: { _id: 'nope', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
  });
});

describe('a folder that cannot be written', () => {
  for (const code of ['EROFS', 'EPERM', 'EACCES']) {
    it(`${code}: 503 naming the folder and what to do; nothing applied`, async () => {
      injectDiskFault({ code, path: 'notes.db' });
      const create = await t.req('POST', '/database/notes', { body: { _id: `ro-${code}` } });
      expect(create.status).toBe(503);
      expect(create.body.error.code).toBe('UNAVAILABLE');
      expect(create.body.error.message).toMatch(/cannot be written.*writable/);
      expect(create.body.error.details.folder).toBe(join(data.dir, 'workspaces', 'demo', 'collections'));
      expect((await t.req('GET', `/database/notes/ro-${code}`)).status).toBe(404);
      const u = await t.user(`ro${code}`);
      injectDiskFault({ code, path: 'users.db' });
      expect((await t.req('PUT', `/users/${u._id}`, { body: { name: 'changed' } })).status).toBe(503);
      expect((await t.req('GET', `/users/${u._id}`)).body.name).toBe(`ro${code}`);
      injectDiskFault(undefined);
      expect((await t.req('POST', '/database/notes', { body: { _id: `ro-${code}` } })).status).toBe(201);
    });
  }
});

describe('after a restart', () => {
  it('holds exactly what was acknowledged', async () => {
    injectDiskFault({ code: 'ENOSPC', path: 'notes.db' });
    expect((await t.req('POST', '/database/notes', { body: { _id: 'ghost' } })).status).toBe(507);
    injectDiskFault(undefined);
    expect((await t.req('POST', '/database/notes', { body: { _id: 'real' } })).status).toBe(201);
    const ids = (await t.req('GET', '/database/notes?limit=100')).body.data.map((d: { _id: string }) => d._id).sort();
    await t.close();
    t = await startTestServer({ data: data.dir });
    const again = (await t.req('GET', '/database/notes?limit=100')).body.data.map((d: { _id: string }) => d._id).sort();
    expect(again).toEqual(ids);
    expect(again).toContain('real');
    expect(again).not.toContain('ghost');
  });
});

describe('the datafile', () => {
  it('recovers a complete record glued after a partial one (a failed append from an older version)', async () => {
    const file = join(data.dir, 'glued.db');
    await writeFile(file, '{"_id":"a","v":1}\n{"_id":"b","v":\n'.slice(0, -1) + '{"_id":"c","v":3}\n'
      + Array.from({ length: 20 }, (_, i) => `{"_id":"x${i}"}`).join('\n') + '\n');
    const store = await DocStore.open({ filename: file, compactEvery: 0 });
    expect(store.get('a')).toBeTruthy();
    expect(store.get('c')).toMatchObject({ v: 3 });
    expect(store.get('b')).toBeUndefined();
    await store.close();
  });

  it('does not revive a document nested in a torn last line (an event\'s data cut after it closed)', async () => {
    const file = join(data.dir, 'torn-event.db');
    await writeFile(file, '{"_id":"ch","name":"kept"}\n{"_id":"ch","$$deleted":true}\n'
      + Array.from({ length: 20 }, (_, i) => `{"_id":"x${i}"}`).join('\n') + '\n'
      + '{"$$event":{"id":"evt_1","type":"channel.deleted","data":{"_id":"ch","name":"kept"}');
    const store = await DocStore.open({ filename: file, compactEvery: 0 });
    expect(store.get('ch')).toBeUndefined();
    expect(store.get('x19')).toBeTruthy();
    await store.close();
  });

  it('a store that cannot load answers 503 with the reason, retried after a back-off', async () => {
    expect((await t.req('POST', '/database', { body: { _id: 'broken', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
    await t.close();
    await writeFile(join(data.dir, 'workspaces', 'demo', 'collections', 'broken.db'), 'garbage\n'.repeat(50));
    t = await startTestServer({ data: data.dir });
    const heapBefore = process.memoryUsage().heapUsed;
    for (let i = 0; i < 200; i++) {
      const res = await t.req('GET', '/database/broken');
      expect(res.status).toBe(503);
      expect(res.body.error.message).toMatch(/broken store .* could not be loaded .*corrupt.*tried again in/);
    }
    // Failed loads are not retried on every request: memory stays flat (generous bound).
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(50 * 1024 * 1024);
    expect((await t.req('GET', '/database/notes/real')).status).toBe(200); // the rest works
  });
});

// Import, snapshot restore and reset are atomic across kill -9: a child server killed at each
// step of the swap (storage/embedded/swap.ts: new content written beside, journal committed, entries
// being applied) restarts with the workspace entirely old (killed before the commit) or
// entirely new (after it), and no temporary file left.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, tempDataDir, TEST_ADMIN, type TestServer } from '../../test/harness.js';
import { serveJson, exited } from '../../test/spawn.js';

const temps: Array<() => void> = [];
afterAll(() => { for (const r of temps) r(); });

const OLD = { people: ['ada', 'alan', 'grace'], users: ['old-1@example.com', 'old-2@example.com'] };
const DUMP = {
  format: 'homebase-dump', version: 1,
  schema: { collections: [{ _id: 'people', fields: [{ _id: 'name', type: 'string' }] }, { _id: 'pets' }] },
  records: { people: [{ _id: 'xavier', name: 'X' }, { _id: 'yann', name: 'Y' }], pets: [{ _id: 'rex' }] },
  users: [{ _id: 'newuser', email: 'new@example.com', password: 'new-password-1', name: 'New' }],
};

interface Fingerprint { collections: string[]; records: Record<string, string[]>; users: string[] }

async function fingerprint(t: TestServer): Promise<Fingerprint> {
  const collections = (await t.req('GET', '/database?limit=100')).body.data.map((c: { _id: string }) => c._id).sort();
  const records: Record<string, string[]> = {};
  for (const c of collections) records[c] = (await t.req('GET', `/database/${c}?limit=100`)).body.data.map((r: { _id: string }) => r._id).sort();
  const users = (await t.req('GET', '/users?limit=100')).body.data.map((u: { email: string }) => u.email).filter((e: string) => e !== TEST_ADMIN.email).sort();
  return { collections, records, users };
}

/** Every file under a folder (relative paths). */
function walk(dir: string, base = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(dir, base))) {
    const rel = base ? `${base}/${name}` : name;
    if (statSync(join(dir, rel)).isDirectory()) out.push(rel + '/', ...walk(dir, rel)); else out.push(rel);
  }
  return out;
}

let template: string;
let oldPrint: Fingerprint;
const newPrint: Record<string, Fingerprint> = {};

beforeAll(async () => {
  const d = tempDataDir('hb-crash-template-');
  temps.push(d.remove);
  template = d.dir;
  const t = await startTestServer({ data: template });
  try {
    // The snapshot a restore brings back: the dump's content.
    expect((await t.consoleReq('POST', '/workspaces/demo/import', DUMP)).status).toBe(200);
    newPrint.restore = await fingerprint(t);
    newPrint.import = newPrint.restore;
    expect((await t.consoleReq('POST', '/workspaces/demo/snapshots', { name: 'snap' })).status).toBe(201);
    // The old content every case starts from.
    expect((await t.consoleReq('POST', '/workspaces/demo/reset', {})).status).toBe(200);
    newPrint.reset = { collections: [], records: {}, users: [] };
    expect((await t.req('POST', '/database', { body: { _id: 'people', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
    for (const id of OLD.people) expect((await t.req('POST', '/database/people', { body: { _id: id, note: 'old' } })).status).toBe(201);
    for (const email of OLD.users) expect((await t.req('POST', '/users', { body: { email, password: 'old-password-1' } })).status).toBe(201);
    oldPrint = await fingerprint(t);
  } finally {
    await t.close();
  }
}, 60_000);

const ops: Record<string, [string, unknown]> = {
  import: ['/workspaces/demo/import', DUMP],
  restore: ['/workspaces/demo/snapshots/snap/restore', undefined],
  reset: ['/workspaces/demo/reset', {}],
};
// Before the commit → old; at and after it → new.
const steps: Array<[string, 'old' | 'new']> = [['swap:written', 'old'], ['swap:committed', 'new'], ['swap:applying#2', 'new']];

describe.each(Object.keys(ops))('kill -9 during %s', (op) => {
  it.each(steps)('at %s: entirely %s after the restart, no temporary file', async (step, expected) => {
    const d = tempDataDir('hb-crash-');
    temps.push(d.remove);
    cpSync(template, d.dir, { recursive: true });
    const before = walk(d.dir).filter((f) => !f.startsWith('.lock'));
    const { child, line } = await serveJson(['--data', d.dir, '--port', '0', '--admin-password', TEST_ADMIN.password], { HOMEBASE_TEST_CRASH_AT: step });
    const gone = exited(child);
    const [path, body] = ops[op];
    await fetch(`${line.url}${path}`, {
      method: 'POST', headers: { authorization: `Bearer ${line.consoleToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    }).catch(() => undefined); // the server dies mid-request
    const end = await gone;
    expect(end.signal).toBe('SIGKILL');

    const t = await startTestServer({ data: d.dir });
    try {
      expect(await fingerprint(t)).toEqual(expected === 'old' ? oldPrint : newPrint[op]);
    } finally {
      await t.close();
    }
    const after = walk(d.dir);
    expect(after.filter((f) => f.startsWith('workspaces/demo/.swap') || f.endsWith('~'))).toEqual([]);
    expect(existsSync(join(d.dir, '.lock'))).toBe(false);
    if (expected === 'old') expect(after.filter((f) => !before.includes(f) && !f.startsWith('workspaces/demo/files'))).toEqual([]);
  }, 120_000);
});

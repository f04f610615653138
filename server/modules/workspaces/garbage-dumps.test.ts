// One rule in one place: an import is checked by the same validators as the API (the users,
// scenarios, webhooks and credentials modules' own), whole, before anything is switched. Garbage
// dumps are refused with the JSON path of the problem and change nothing; the same bad input
// sent through the API and through an import is refused by both; a scenario without a trigger
// no longer breaks the workspace (nor the next start on its data folder).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../index.js';
import { startTestServer, tempDataDir, type TestServer } from '../../test/harness.js';

let t: TestServer;
beforeAll(async () => { t = await startTestServer(); });
afterAll(async () => { await t.close(); });

const dump = (extra: Record<string, unknown>) => ({ format: 'homebase-dump', version: 1, ...extra });
const importDump = (body: unknown) => t.consoleReq('POST', '/workspaces/demo/import', body);
const stamp = '2026-01-01T00:00:00.000Z';
const HASH = `$2b$04$${'a'.repeat(53)}`;
/** 73 bytes of ASCII, and 25 characters that are 75 bytes of UTF-8: bcrypt would cut both. */
const LONG_ASCII = 'p'.repeat(73);
const LONG_UTF8 = '€'.repeat(25);

/** [what, dump, the field the 422 names, its reason] */
const GARBAGE: Array<[string, Record<string, unknown>, string, string]> = [
  ['an active scenario without steps', { scenarios: [{ _id: 's1', name: 'x', active: true, trigger: { type: 'manual' } }] }, 'scenarios[0].steps', 'too_short'],
  ['a scenario whose trigger is a string', { scenarios: [{ _id: 's1', name: 'x', trigger: 'event' }] }, 'scenarios[0].trigger', 'type'],
  ['a scenario of an unknown trigger type', { scenarios: [{ _id: 's1', name: 'x', trigger: { type: 'sometimes' } }] }, 'scenarios[0].trigger.type', 'enum'],
  ['a scenario whose steps are not a list', { scenarios: [{ _id: 's1', name: 'x', steps: { type: 'delay' } }] }, 'scenarios[0].steps', 'type'],
  ['a scenario without a name', { scenarios: [{ _id: 's1', trigger: { type: 'manual' } }] }, 'scenarios[0].name', 'required'],
  ['an active scenario whose cron never parses', { scenarios: [{ _id: 's1', name: 'x', active: true, trigger: { type: 'schedule', cron: 'every tuesday' }, steps: [{ type: 'delay', ms: 1 }] }] }, 'scenarios[0].trigger.cron', 'format'],
  ['an active scenario naming a secret the dump lacks', { scenarios: [{ _id: 's1', name: 'x', active: true, trigger: { type: 'manual' }, steps: [{ type: 'http', url: 'http://127.0.0.1:1/{{secrets.NOPE}}' }] }] }, 'scenarios[0].steps[0]', 'invalid'],
  ['a user with a 73-byte password', { users: [{ _id: 'u1', email: 'long@example.test', password: LONG_ASCII }] }, 'users[0].password', 'too_long'],
  ['a user with a 25-character, 75-byte password', { users: [{ _id: 'u1', email: 'long@example.test', password: LONG_UTF8 }] }, 'users[0].password', 'too_long'],
  ['a user with a short password', { users: [{ _id: 'u1', email: 'short@example.test', password: 'short' }] }, 'users[0].password', 'too_short'],
  ['a user with neither password nor hash', { users: [{ _id: 'u1', email: 'none@example.test' }] }, 'users[0].password', 'required'],
  ['a user with a bad hash', { users: [{ _id: 'u1', email: 'hash@example.test', passwordHash: 'plain' }] }, 'users[0].passwordHash', 'format'],
  ['a user with a bad email', { users: [{ _id: 'u1', email: 'not-an-email', passwordHash: HASH }] }, 'users[0].email', 'format'],
  ['a user whose email is a number', { users: [{ _id: 'u1', email: 42, passwordHash: HASH }] }, 'users[0].email', 'type'],
  ['a user whose role is empty', { users: [{ _id: 'u1', email: 'role@example.test', passwordHash: HASH, role: '' }] }, 'users[0].role', 'too_short'],
  ['a user with a bad id', { users: [{ _id: '1abc', email: 'id@example.test', passwordHash: HASH }] }, 'users[0]._id', 'format'],
  ['two users with one email (in any case)', { users: [{ _id: 'u1', email: 'same@example.test', passwordHash: HASH }, { _id: 'u2', email: 'SAME@example.test', passwordHash: HASH }] }, 'users[1].email', 'invalid'],
  ['a user with a $ key in its profile', { users: [{ _id: 'u1', email: 'key@example.test', passwordHash: HASH, prefs: { $where: 1 } }] }, 'users[0].prefs["$where"]', 'format'],
  ['a secret carrying a value', { secrets: [{ _id: 'c1', name: 'API_KEY', value: 'plain' }] }, 'secrets[0].value', 'read_only'],
  ['a secret with a bad name', { secrets: [{ _id: 'c1', name: 'api key' }] }, 'secrets[0].name', 'format'],
  ['a webhook with a relative URL', { webhooks: [{ _id: 'w1', url: '/hook', events: ['*'] }] }, 'webhooks[0].url', 'format'],
];

describe('garbage dumps', () => {
  it.each(GARBAGE)('refuses %s with 422 naming the field, and changes nothing', async (_what, extra, field, reason) => {
    const before = await t.consoleReq('GET', '/workspaces/demo/export');
    const r = await importDump(dump(extra));
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('VALIDATION_ERROR');
    expect(r.body.error.details).toMatchObject({ field, reason });
    const after = await t.consoleReq('GET', '/workspaces/demo/export');
    expect({ ...after.body, exportedAt: 0 }).toEqual({ ...before.body, exportedAt: 0 });
  });
});

describe('the same bad input through the API and through an import', () => {
  const badPasswords: Array<[string, string]> = [['73 bytes of ASCII', LONG_ASCII], ['75 bytes in 25 characters', LONG_UTF8], ['7 characters', 'short12']];

  it.each(badPasswords)('a password of %s is refused by every write path', async (_what, password) => {
    const email = `diff-${Math.random().toString(36).slice(2)}@example.test`;
    const refusals = [
      await t.req('POST', '/users', { body: { email, password } }),
      await t.req('POST', '/auth/register', { token: null, body: { email, password } }),
      await t.consoleReq('POST', '/workspaces', { _id: 'diffws', admin: { email, password } }),
      await importDump(dump({ users: [{ _id: 'u1', email, password }] })),
    ];
    for (const r of refusals) {
      expect(r.status).toBe(422);
      expect(String(r.body.error.details.field)).toMatch(/password$/);
    }
    expect((await t.consoleReq('GET', '/workspaces')).body.data.map((w: { _id: string }) => w._id)).not.toContain('diffws');
    expect((await t.req('POST', '/auth/login', { token: null, body: { email, password: password.slice(0, 72) } })).status).toBe(401);
  });

  it('a bad email is refused by every write path', async () => {
    const email = 'no-at-sign.example.test';
    const refusals = [
      await t.req('POST', '/users', { body: { email, password: 'password-123' } }),
      await t.req('POST', '/auth/register', { token: null, body: { email, password: 'password-123' } }),
      await t.consoleReq('POST', '/workspaces', { _id: 'diffws', admin: { email, password: 'password-123' } }),
      await importDump(dump({ users: [{ _id: 'u1', email, password: 'password-123' }] })),
    ];
    for (const r of refusals) expect([r.status, r.body.error.details.field]).toEqual([422, expect.stringMatching(/email$/)]);
  });

  it('a scenario the API would not let run is refused by activation and by import alike', async () => {
    const scenario = { name: 'never', trigger: { type: 'schedule', cron: 'every tuesday' }, steps: [{ type: 'delay', ms: 1 }] };
    const draft = await t.req('POST', '/scenarios', { body: scenario });
    expect(draft.status).toBe(201);
    const activate = await t.req('POST', `/scenarios/${draft.body._id}/activate`);
    expect([activate.status, activate.body.error.details.field]).toEqual([422, 'trigger.cron']);
    const imported = await importDump(dump({ scenarios: [{ _id: 's1', ...scenario, active: true }] }));
    expect([imported.status, imported.body.error.details.field]).toEqual([422, 'scenarios[0].trigger.cron']);
    await t.req('DELETE', `/scenarios/${draft.body._id}`);
  });

  it('the first admin of startServer follows the password rule too', async () => {
    await expect(startServer({ port: 0, inMemory: true, bcryptCost: 4, adminPassword: LONG_ASCII })).rejects.toThrow(/adminPassword/);
    await expect(startServer({ port: 0, inMemory: true, bcryptCost: 4, adminEmail: 'nobody', adminPassword: 'password-123' })).rejects.toThrow(/adminEmail/);
  });
});

describe('a scenario without a trigger', () => {
  it('imports with the manual trigger a draft gets, events still flow, and the data folder starts again', async () => {
    const { dir, remove } = tempDataDir();
    try {
      const first = await startTestServer({ data: dir });
      const r = await first.consoleReq('POST', '/workspaces/demo/import', dump({
        schema: { collections: [{ _id: 'notes', setting: { read: 'public', write: 'public' } }] },
        scenarios: [{ _id: 's1', name: 'no trigger', active: true, steps: [{ type: 'delay', ms: 1 }] }, { _id: 's2', name: 'bare draft' }],
      }));
      expect(r.status).toBe(200);
      expect(r.body.imported.scenarios).toBe(2);
      expect((await first.req('GET', '/scenarios/s1')).body).toMatchObject({ active: true, trigger: { type: 'manual' } });
      expect((await first.req('GET', '/scenarios/s2')).body).toMatchObject({ active: false, trigger: { type: 'manual' }, steps: [] });
      // Events reach the scenario engine without it throwing.
      expect((await first.req('POST', '/database/notes', { body: { text: 'hi' } })).status).toBe(201);
      await first.close();

      const second = await startTestServer({ data: dir });
      expect((await second.req('GET', '/scenarios/s1')).body).toMatchObject({ name: 'no trigger', trigger: { type: 'manual' } });
      expect((await second.req('POST', '/database/notes', { body: { text: 'again' } })).status).toBe(201);
      await second.close();
    } finally {
      remove();
    }
  });

  it('an active one without a trigger is completed as a manual one: nothing can fire it by itself', async () => {
    const r = await importDump(dump({ scenarios: [{ _id: 's1', name: 'x', active: true, steps: [{ type: 'delay', ms: 1 }], createdAt: stamp, updatedAt: stamp }] }));
    expect(r.status).toBe(200);
    expect((await t.req('GET', '/scenarios/s1')).body).toMatchObject({ active: true, trigger: { type: 'manual' }, createdAt: stamp });
    const run = await t.req('POST', '/scenarios/s1/run');
    expect(run.status).toBe(201);
    expect(run.body.status).toBe('succeeded');
  });
});

describe('the same bad document through its API and through an import', () => {
  const schema = { collections: [{ _id: 'typed', setting: { read: 'public', write: 'private', update: 'private' }, fields: [{ _id: 'age', type: 'integer' }] }] };
  /** [what, the API call, the import's dump, the field both must name (the import's is rooted at its section)] */
  const CASES: Array<[string, () => Promise<{ status: number; body: any }>, Record<string, unknown>, string, string]> = [
    ['a webhook with a relative URL', () => t.req('POST', '/webhooks', { body: { name: 'w', url: '/hook', events: ['*'] } }),
      { webhooks: [{ _id: 'w1', name: 'w', url: '/hook', events: ['*'] }] }, 'url', 'webhooks[0].url'],
    ['a webhook with an unknown event', () => t.req('POST', '/webhooks', { body: { name: 'w', url: 'http://127.0.0.1:9/h', events: ['record.exploded'] } }),
      { webhooks: [{ _id: 'w1', name: 'w', url: 'http://127.0.0.1:9/h', events: ['record.exploded'] }] }, 'events[0]', 'webhooks[0].events[0]'],
    ['a secret with a bad name', () => t.req('POST', '/credentials', { body: { name: 'api key', value: 'v' } }),
      { secrets: [{ _id: 'c1', name: 'api key' }] }, 'name', 'secrets[0].name'],
    ['a collection with a bad id', () => t.req('POST', '/database', { body: { _id: '1bad', setting: schema.collections[0].setting } }),
      { schema: { collections: [{ _id: '1bad', setting: schema.collections[0].setting }] } }, '_id', 'schema.collections[0]._id'],
    ['a field of an unknown type', () => t.req('POST', '/database/typed/fields', { body: { _id: 'when', type: 'moment' } }),
      { schema: { collections: [{ ...schema.collections[0], fields: [{ _id: 'when', type: 'moment' }] }] } }, 'type', 'schema.collections[0].fields[0].type'],
    ['a record breaking its field type', () => t.req('POST', '/database/typed', { body: { age: 'old' } }),
      { schema, records: { typed: [{ _id: 'r1', age: 'old' }] } }, 'age', 'records.typed[0].age'],
    ['a record with a $ key', () => t.req('POST', '/database/typed', { body: { meta: { $gt: 1 } } }),
      { schema, records: { typed: [{ _id: 'r1', meta: { $gt: 1 } }] } }, 'meta', 'records.typed[0].meta'],
  ];

  beforeAll(async () => {
    const res = await t.req('POST', '/database', { body: schema.collections[0] });
    expect(res.status, res.text).toBe(201);
  });

  it.each(CASES)('%s is refused by both, naming the same field', async (_what, api, extra, apiField, importField) => {
    const before = await t.consoleReq('GET', '/workspaces/demo/export');
    const viaApi = await api();
    expect(viaApi.status).toBe(422);
    // The API names array items `events.0`, an import `events[0]` (the dump's JSON path).
    const dotted = (f: unknown) => String(f).replace(/\[(\d+)\]/g, '.$1');
    expect(dotted(viaApi.body.error.details.field).startsWith(dotted(apiField))).toBe(true);
    const viaImport = await importDump(dump(extra));
    expect(viaImport.status).toBe(422);
    expect(dotted(viaImport.body.error.details.field).startsWith(dotted(importField))).toBe(true);
    expect(viaImport.body.error.details.reason).toBe(viaApi.body.error.details.reason);
    const after = await t.consoleReq('GET', '/workspaces/demo/export');
    expect({ ...after.body, exportedAt: 0 }).toEqual({ ...before.body, exportedAt: 0 });
  });
});

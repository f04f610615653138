// Import refuses what the API itself would refuse (the database module's schemas and validators
// applied to the dump), naming the JSON path of the first problem, and changes nothing; a
// workspace's own export still imports, records older than a schema change included. Webhooks of
// a dump may carry their signing secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { waitFor } from '../../test/receiver.js';

let t: TestServer;
beforeAll(async () => { t = await startTestServer(); });
afterAll(async () => { await t.close(); });

const BASE = {
  format: 'homebase-dump', version: 1,
  schema: {
    collections: [
      { _id: 'teams', setting: { read: 'public' } },
      {
        _id: 'people',
        setting: { read: 'public', write: 'private', update: 'private' },
        fields: [
          { _id: 'name', type: 'string', required: true },
          { _id: 'age', type: 'integer', options: { min: 0 } },
          { _id: 'level', type: 'enum', options: { values: ['junior', 'senior'] }, default: 'junior' },
          { _id: 'team', type: 'reference', options: { collection: 'teams' } },
        ],
        views: [{ _id: 'adults', filter: { age: { $gte: 18 } }, sort: '-age' }],
        indexes: [{ _id: 'byName', fields: ['name'] }],
      },
    ],
  },
  records: { teams: [{ _id: 'red' }], people: [{ _id: 'ada', name: 'Ada', age: 36, team: 'red' }] },
};

type Dump = typeof BASE & Record<string, any>;
const clone = (): Dump => structuredClone(BASE) as Dump;
const people = (d: Dump) => d.schema.collections[1] as Record<string, any>;

describe('import validates like the API', () => {
  it('accepts a valid hand-written dump, completing settings and applying defaults', async () => {
    const r = await t.consoleReq('POST', '/workspaces/demo/import', clone());
    expect(r.status).toBe(200);
    const teams = await t.req('GET', '/database?filter[_id]=teams');
    expect(teams.body.data[0].setting).toEqual({ read: 'public', write: 'private', update: 'private' });
    const ada = await t.req('GET', '/database/people/ada', { token: null });
    expect(ada.body).toMatchObject({ name: 'Ada', age: 36, level: 'junior' });
    expect((await t.req('GET', '/database/people?view=adults', { token: null })).body.meta.total).toBe(1);
  });

  it('refuses what the API refuses, at the JSON path of the first problem, and changes nothing', async () => {
    const before = await t.consoleReq('GET', '/workspaces/demo/export');
    const cases: Array<[string, (d: Dump) => void, string, string?]> = [
      ['setting.read "everyone"', (d) => { people(d).setting.read = 'everyone'; }, 'schema.collections[1].setting.read', 'enum'],
      ['setting not an object', (d) => { people(d).setting = 'public'; }, 'schema.collections[1].setting', 'type'],
      ['enum without values', (d) => { delete people(d).fields[2].options; }, 'schema.collections[1].fields[2].options.values', 'required'],
      ['enum with empty values', (d) => { people(d).fields[2].options.values = []; }, 'schema.collections[1].fields[2].options.values'],
      ['unknown field type', (d) => { people(d).fields[0].type = 'text'; }, 'schema.collections[1].fields[0].type', 'enum'],
      ['reference to a missing collection', (d) => { people(d).fields[3].options.collection = 'ghosts'; }, 'schema.collections[1].fields[3].options.collection', 'invalid'],
      ['default of the wrong type', (d) => { people(d).fields[1].default = 'old'; }, 'schema.collections[1].fields[1].default', 'type'],
      ['duplicate field', (d) => { people(d).fields.push({ _id: 'name', type: 'string' }); }, 'schema.collections[1].fields[4]._id', 'invalid'],
      ['field named constructor', (d) => { people(d).fields.push({ _id: 'constructor', type: 'string' }); }, 'schema.collections[1].fields[4]._id', 'invalid'],
      ['collection ids equal but for case', (d) => { d.schema.collections.push({ _id: 'Teams' } as any); }, 'schema.collections[2]._id', 'invalid'],
      ['record id Fields', (d) => { d.records.teams.push({ _id: 'Fields' }); }, 'records.teams[1]._id', 'invalid'],
      ['field named createdAt', (d) => { people(d).fields.push({ _id: 'createdAt', type: 'date' }); }, 'schema.collections[1].fields[4]._id', 'invalid'],
      ['view filter with $regex', (d) => { people(d).views[0].filter = { name: { $regex: '^A' } }; }, 'schema.collections[1].views[0].filter', 'invalid'],
      ['view filter a string', (d) => { people(d).views[0].filter = 'age > 18'; }, 'schema.collections[1].views[0].filter', 'type'],
      ['view sort not a path', (d) => { people(d).views[0].sort = 'a b'; }, 'schema.collections[1].views[0].sort', 'invalid'],
      ['index on _id alone', (d) => { people(d).indexes[0].fields = ['_id']; }, 'schema.collections[1].indexes[0].fields', 'invalid'],
      ['record value of the wrong type', (d) => { (d.records.people[0] as any).age = 'thirty'; }, 'records.people[0].age', 'type'],
      ['record value out of range', (d) => { d.records.people[0].age = -1; }, 'records.people[0].age', 'invalid'],
      ['record enum value', (d) => { (d.records.people[0] as any).level = 'boss'; }, 'records.people[0].level', 'enum'],
      ['required field missing', (d) => { delete (d.records.people[0] as any).name; }, 'records.people[0].name', 'required'],
      ['required field empty', (d) => { d.records.people[0].name = ''; }, 'records.people[0].name', 'required'],
      ['_owner a number', (d) => { (d.records.people[0] as any)._owner = 42; }, 'records.people[0]._owner', 'type'],
      ['createdAt not a date', (d) => { (d.records.people[0] as any).createdAt = 'yesterday'; }, 'records.people[0].createdAt', 'format'],
      ['updatedAt a number', (d) => { (d.records.people[0] as any).updatedAt = 12; }, 'records.people[0].updatedAt', 'type'],
      ['__proto__ key', (d) => { d.records.teams[0] = JSON.parse('{"_id":"red","meta":{"__proto__":{"x":1}}}'); }, 'records.teams[0].meta.__proto__', 'format'],
      ['webhook with a bad url', (d) => { d.webhooks = [{ _id: 'h1', url: 'ftp://x', events: ['*'] }]; }, 'webhooks[0].url'],
      ['webhook with an unknown event', (d) => { d.webhooks = [{ _id: 'h1', url: 'http://127.0.0.1:9/x', events: ['record.exploded'] }]; }, 'webhooks[0].events[0]'],
      ['webhook secret without prefix', (d) => { d.webhooks = [{ _id: 'h1', url: 'http://127.0.0.1:9/x', events: ['*'], secret: Buffer.alloc(32, 1).toString('base64') }]; }, 'webhooks[0].secret'],
      ['webhook secret too short', (d) => { d.webhooks = [{ _id: 'h1', url: 'http://127.0.0.1:9/x', events: ['*'], secret: `whsec_${Buffer.alloc(8, 1).toString('base64')}` }]; }, 'webhooks[0].secret'],
    ];
    for (const [what, change, field, reason] of cases) {
      const dump = clone();
      change(dump);
      const r = await t.consoleReq('POST', '/workspaces/demo/import', dump);
      expect(r.status, what).toBe(422);
      expect(r.body.error.details.field, what).toBe(field);
      if (reason) expect(r.body.error.details.reason, what).toBe(reason);
      expect(r.body.error.message, what).toContain(field);
    }
    const after = await t.consoleReq('GET', '/workspaces/demo/export');
    expect({ ...after.body, exportedAt: 0 }).toEqual({ ...before.body, exportedAt: 0 });
  });

  it('imports a workspace\'s own export back, with records older than a schema change', async () => {
    await t.consoleReq('POST', '/workspaces/demo/reset');
    expect((await t.req('POST', '/database', { body: { _id: 'notes', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
    expect((await t.req('POST', '/database/notes', { body: { _id: 'old', text: 'no title, rating a string', rating: 'good' } })).status).toBe(201);
    // The definitions come a second later by the workspace's clock (what is older is decided
    // by createdAt, which follows it).
    expect((await t.consoleReq('POST', '/workspaces/demo/clock/advance', { ms: 1000 })).status).toBe(200);
    // Schema changes never rewrite existing records: 'old' breaks both new definitions.
    expect((await t.req('POST', '/database/notes/fields', { body: { _id: 'title', type: 'string', required: true } })).status).toBe(201);
    expect((await t.req('POST', '/database/notes/fields', { body: { _id: 'rating', type: 'integer' } })).status).toBe(201);
    expect((await t.req('POST', '/database/notes', { body: { _id: 'fresh', title: 'Fresh', rating: 5 } })).status).toBe(201);
    const dump = (await t.consoleReq('GET', '/workspaces/demo/export')).body;
    const r = await t.consoleReq('POST', '/workspaces/demo/import', dump);
    expect(r.status).toBe(200);
    expect(r.body.imported.records).toBe(2);
    const again = (await t.consoleReq('GET', '/workspaces/demo/export')).body;
    expect({ ...again, exportedAt: 0 }).toEqual({ ...dump, exportedAt: 0 });
    // A record created after the definition is held to it.
    const broken = structuredClone(dump);
    broken.records.notes.find((n: { _id: string }) => n._id === 'fresh').rating = 'five';
    const refused = await t.consoleReq('POST', '/workspaces/demo/import', broken);
    expect(refused.status).toBe(422);
    expect(refused.body.error.details.field).toMatch(/^records\.notes\[\d\]\.rating$/);
    expect((await t.consoleReq('DELETE', '/workspaces/demo/clock')).status).toBe(200);
  });
});

describe('webhook secrets in dumps', () => {
  it('keeps a given secret, so that a suite can verify signatures; export never shows it', async () => {
    const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => { received.push({ headers: req.headers, body }); res.end('ok'); });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const secret = `whsec_${Buffer.from('a fixed secret of thirty-two b!!').toString('base64')}`;
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const dump = { ...clone(), webhooks: [{ _id: 'fixed', name: 'fixed', url, events: ['record.created'], secret }, { _id: 'fresh', url, events: ['record.created'], active: false }] };
      const r = await t.consoleReq('POST', '/workspaces/demo/import', dump);
      expect(r.status).toBe(200);
      expect((await t.req('POST', '/database/teams', { body: { _id: 'blue' } })).status).toBe(201);
      await waitFor(() => received.length > 0, 5000, 'the delivery');
      expect(received).toHaveLength(1);
      const payload = new Webhook(secret).verify(received[0].body, received[0].headers as Record<string, string>) as { type: string; data: { _id: string } };
      expect(payload).toMatchObject({ type: 'record.created', data: { _id: 'blue' } });

      const exported = await t.consoleReq('GET', '/workspaces/demo/export');
      expect(exported.text).not.toContain(secret);
      expect(exported.text).not.toContain(secret.slice(6));
      expect(exported.body.webhooks.map((w: { _id: string; name: string }) => [w._id, w.name])).toEqual([['fixed', 'fixed'], ['fresh', 'fresh']]);
      expect(exported.body.webhooks.every((w: Record<string, unknown>) => !('secret' in w))).toBe(true);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});

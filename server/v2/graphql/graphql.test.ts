// GraphQL over HTTP at /v2/app/{app_id}/graphql: graphql-http's own audit suite, queries and
// mutations through the same services as REST (data, events, access rules, validation codes),
// the schema rebuilt after a field is added, and the depth and cost limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverAudits } from 'graphql-http';
import { startTestServer, type TestServer } from '../../test/harness.js';
import type { BusEvent } from '../../core/bus.js';
import { makeCollection, v2Client } from '../v2-client.js';

let t: TestServer;
let v2: ReturnType<typeof v2Client>;
const events: BusEvent[] = [];
const endpoint = () => `${t.url}/v2/app/${t.workspace}/graphql`;

interface GqlBody { data?: any; errors?: { message: string; path?: string[]; extensions?: { code?: string; details?: any } }[] }

async function gql(query: string, variables?: Record<string, unknown>, token: string | null = t.adminToken): Promise<{ status: number; body: GqlBody; type: string | null }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/graphql-response+json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(endpoint(), { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return { status: res.status, body: await res.json() as GqlBody, type: res.headers.get('content-type') };
}

beforeAll(async () => {
  t = await startTestServer();
  v2 = v2Client(t);
  t.srv.ctx.bus.subscribe((e) => { events.push(e); });
  await makeCollection(t, 'notes', [
    { _id: 'title', name: 'Title', type: 'string', required: true },
    { _id: 'priority', name: 'Priority', type: 'integer' },
    { _id: 'score', name: 'Score', type: 'number' },
    { _id: 'done', name: 'Done', type: 'boolean' },
    { _id: 'tags', name: 'Tags', type: 'array' },
    { _id: 'status', name: 'Status', type: 'enum', options: { values: ['open', 'closed'] } },
  ]);
  const secret = await t.req('POST', '/database', { body: { _id: 'secret-things', name: 'Secret', setting: { read: 'private', write: 'private', update: 'private' }, fields: [{ _id: 'label', name: 'Label', type: 'string' }] } });
  expect(secret.status).toBe(201);
});
afterAll(async () => { await t?.close(); });

describe('GraphQL over HTTP audits (graphql-http serverAudits)', () => {
  // Every MUST of the GraphQL over HTTP spec; the SHOULDs and MAYs are reported by name below.
  for (const audit of serverAudits({ url: () => endpoint() })) {
    if (!audit.name.startsWith('MUST')) continue;
    it(audit.name, async () => {
      const result = await audit.fn();
      expect(result.status, 'reason' in result ? result.reason : '').toBe('ok');
    });
  }
});

describe('collections', () => {
  it('creates through a mutation, reads back through REST, and publishes the same event', async () => {
    const mark = events.length;
    const created = await gql(`mutation($in: NotesInput!) { createNotes(input: $in) { _id title priority score done tags status createdAt } }`,
      { in: { title: 'from graphql', priority: 3, score: 1.5, done: true, tags: ['a', 'b'], status: 'open' } });
    expect(created.status).toBe(200);
    expect(created.type).toMatch(/^application\/graphql-response\+json/);
    expect(created.body.errors).toBeUndefined();
    const rec = created.body.data.createNotes;
    expect(rec).toMatchObject({ title: 'from graphql', priority: 3, score: 1.5, done: true, tags: ['a', 'b'], status: 'open' });
    const rest = await v2('GET', `/database/notes/${rec._id}`);
    expect(rest.status).toBe(200);
    expect(rest.body.data).toMatchObject({ _id: rec._id, title: 'from graphql', priority: 3, tags: ['a', 'b'], status: 'open' });
    expect(events.slice(mark).map((e) => e.type)).toContain('record.created');

    const updated = await gql(`mutation { updateNotes(id: "${rec._id}", input: { priority: 9 }) { title priority } }`);
    expect(updated.body.data.updateNotes).toEqual({ title: 'from graphql', priority: 9 });
    const byId = await gql(`{ notesById(id: "${rec._id}") { _id priority } }`);
    expect(byId.body.data.notesById).toEqual({ _id: rec._id, priority: 9 });

    const deleted = await gql(`mutation { deleteNotes(id: "${rec._id}") }`);
    expect(deleted.body.data.deleteNotes).toBe(rec._id);
    expect((await v2('GET', `/database/notes/${rec._id}`)).status).toBe(404);
    const gone = await gql(`{ notesById(id: "${rec._id}") { _id } }`);
    expect(gone.body.data).toEqual({ notesById: null });
    expect(gone.body.errors?.[0].extensions).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lists with the REST list language: filter, sort, limit, total and cursors', async () => {
    for (let i = 1; i <= 5; i++) expect((await v2('POST', '/database/notes', { body: { title: `list ${i}`, priority: i } })).status).toBe(201);
    const q = `query($f: JSON, $c: String) { notes(filter: $f, sort: "-priority", limit: 2, cursor: $c) { total limit offset data { title priority } pagination { next prev hasMore } } }`;
    const first = await gql(q, { f: { title: { $startsWith: 'list ' }, priority: { $gte: 2 } } });
    expect(first.body.errors).toBeUndefined();
    const page = first.body.data.notes;
    expect(page).toMatchObject({ total: 4, limit: 2, offset: 0, data: [{ title: 'list 5', priority: 5 }, { title: 'list 4', priority: 4 }] });
    expect(page.pagination.hasMore).toBe(true);
    const rest = await v2('GET', '/database/notes?filter[title][$startsWith]=list%20&filter[priority][$gte]=2&sort=-priority&limit=2');
    expect(rest.body.meta.total).toBe(page.total);
    expect(rest.body.data.map((d: { title: string }) => d.title)).toEqual(page.data.map((d: { title: string }) => d.title));
    const second = await gql(q, { f: { title: { $startsWith: 'list ' }, priority: { $gte: 2 } }, c: page.pagination.next });
    expect(second.body.data.notes.data).toEqual([{ title: 'list 3', priority: 3 }, { title: 'list 2', priority: 2 }]);

    // Operators start with `$`, which a GraphQL literal cannot hold: they come in a variable.
    const bad = await gql(`query($f: JSON) { notes(filter: $f) { total } }`, { f: { priority: { $near: 1 } } });
    expect(bad.body.data).toBeNull();
    expect(bad.body.errors?.[0].extensions).toMatchObject({ code: 'BAD_REQUEST', details: { field: 'priority', operator: '$near' } });
  });

  it('answers validation errors with the REST code and details', async () => {
    const res = await gql(`mutation { createNotes(input: { priority: 1 }) { _id } }`);
    expect(res.body.data).toBeNull();
    expect(res.body.errors?.[0]).toMatchObject({ path: ['createNotes'], extensions: { code: 'VALIDATION_ERROR', details: { field: 'title', reason: 'required' } } });
    expect((await v2('GET', '/database/notes?filter[priority]=1&filter[title][$exists]=false')).body.meta.total).toBe(0);
  });

  it('applies access rules: an anonymous caller is refused a private collection, and may not write', async () => {
    const list = await gql(`{ secret_things { total } }`, undefined, null);
    expect(list.body.errors?.[0].extensions?.code).toBe('UNAUTHORIZED');
    const write = await gql(`mutation { createNotes(input: { title: "anon" }) { _id } }`, undefined, null);
    expect(write.body.errors?.[0].extensions?.code).toBe('UNAUTHORIZED');
    expect((await v2('GET', '/database/notes?filter[title]=anon')).body.meta.total).toBe(0);
    // An API key's scopes name REST groups; none opens GraphQL.
    const key = await v2('POST', '/api-keys', { body: { name: 'gql', scopes: ['database:read'] } });
    expect(key.status).toBe(201);
    const withKey = await fetch(endpoint(), { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key.body.data.key }, body: JSON.stringify({ query: '{ __typename }' }) });
    expect(withKey.status).toBe(403);
    // Public reads stay open to the anonymous caller, as in REST.
    const pub = await gql(`{ notes(limit: 1) { total } }`, undefined, null);
    expect(pub.body.errors).toBeUndefined();
    expect(pub.body.data.notes.total).toBeGreaterThan(0);
  });

  it('rebuilds the schema when a field is added', async () => {
    const before = await gql(`{ notes(limit: 1) { data { mood } } }`);
    expect(before.status).toBe(400);
    expect(before.body.errors?.[0].message).toMatch(/Cannot query field "mood"/);
    const added = await t.req('POST', '/database/notes/fields', { body: { _id: 'mood', name: 'Mood', type: 'string' } });
    expect(added.status).toBe(201);
    const created = await gql(`mutation { createNotes(input: { title: "moody", mood: "calm" }) { mood } }`);
    expect(created.body).toEqual({ data: { createNotes: { mood: 'calm' } } });
    const typeInfo = await gql(`{ __type(name: "Notes") { fields { name } } }`);
    expect(typeInfo.body.data.__type.fields.map((f: { name: string }) => f.name)).toContain('mood');
  });
});

describe('users, files, channels and messages', () => {
  it('shows users to administrators only, without password hashes', async () => {
    const u = await t.user('Grace');
    const admin = await gql(`{ users(filter: { email: "${u.email}" }) { total data { _id email name } } user(id: "${u._id}") { name } }`);
    expect(admin.body.data).toEqual({ users: { total: 1, data: [{ _id: u._id, email: u.email, name: 'Grace' }] }, user: { name: 'Grace' } });
    const hidden = await gql(`query($f: JSON) { users(filter: $f) { total } }`, { f: { passwordHash: { $exists: true } } });
    expect(hidden.body.errors?.[0].extensions?.code).toBe('BAD_REQUEST');
    const asUser = await gql(`{ users { total } }`, undefined, u.token);
    expect(asUser.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });

  it('shows channels and messages as the caller may see them', async () => {
    const owner = await t.user('Owner');
    const outsider = await t.user('Outsider');
    const ch = await t.req('POST', '/chats/channels', { token: owner.token, body: { name: 'room' } });
    expect(ch.status).toBe(201);
    expect((await t.req('POST', `/chats/${ch.body._id}/messages`, { token: owner.token, body: { text: 'hello' } })).status).toBe(201);
    const seen = await gql(`{ channels { total data { _id name } } messages(channelId: "${ch.body._id}") { total data { text author { _id } } } }`, undefined, owner.token);
    expect(seen.body.errors).toBeUndefined();
    expect(seen.body.data.channels.data.map((c: { _id: string }) => c._id)).toContain(ch.body._id);
    expect(seen.body.data.messages).toEqual({ total: 1, data: [{ text: 'hello', author: { _id: owner._id } }] });
    const notMine = await gql(`{ channel(id: "${ch.body._id}") { name } }`, undefined, outsider.token);
    expect(notMine.body.errors?.[0].extensions?.code).toMatch(/FORBIDDEN|NOT_FOUND/);
    const theirs = await gql(`{ channels { data { _id } } }`, undefined, outsider.token);
    expect(theirs.body.data.channels.data.map((c: { _id: string }) => c._id)).not.toContain(ch.body._id);
  });

  it('lists files for signed-in callers only', async () => {
    const anon = await gql(`{ files { total } }`, undefined, null);
    expect(anon.body.errors?.[0].extensions?.code).toBe('UNAUTHORIZED');
    const form = new FormData();
    form.append('file', new Blob(['hi there']), 'hi.txt');
    const up = await fetch(`${t.api}/storage/upload`, { method: 'POST', headers: { authorization: `Bearer ${t.adminToken}` }, body: form });
    expect(up.status).toBe(201);
    const file = await up.json() as { _id: string };
    const res = await gql(`{ files(filter: { name: "hi.txt" }) { total data { _id name size url } } file(id: "${file._id}") { name } }`);
    expect(res.body.data.files.total).toBe(1);
    expect(res.body.data.files.data[0]).toMatchObject({ _id: file._id, name: 'hi.txt', size: 8 });
    expect(res.body.data.files.data[0].url).toMatch(new RegExp(`/storage/${file._id}/download$`));
    expect(res.body.data.file).toEqual({ name: 'hi.txt' });
  });
});

describe('limits', () => {
  it('refuses a query deeper than the limit before it runs', async () => {
    // channel → messages → channel → ...: each round adds three levels.
    let selection = 'name';
    for (let i = 0; i < 4; i++) selection = `messages(limit: 1) { data { channel { ${selection} } } }`;
    const res = await gql(`{ channels(limit: 1) { data { ${selection} } } }`);
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors?.[0].message).toMatch(/exceeds maximum operation depth of 10/);
    // Within the limit, the same nesting runs.
    const ok = await gql(`{ channels(limit: 1) { data { messages(limit: 1) { data { channel { name } } } } } }`);
    expect(ok.status).toBe(200);
    expect(ok.body.errors).toBeUndefined();
  });

  it('refuses a query costlier than the limit before it runs', async () => {
    const fields = Array.from({ length: 60 }, (_, i) => `n${i}: notes(limit: 100) { data { _id title priority score done } }`).join(' ');
    const res = await gql(`{ ${fields} }`);
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_REQUEST', details: { limit: 20000 } } });
    expect(res.body.errors?.[0].message).toMatch(/more than the limit of 20000/);
    // The cost reads a limit given in a variable: the same query text is cheap or too costly by it
    // (the validation remembered for one set of variables is not reused for another).
    const byVariable = `query($l: Int) { ${Array.from({ length: 60 }, (_, i) => `n${i}: notes(limit: $l) { data { _id title priority score done } }`).join(' ')} }`;
    const cheap = await gql(byVariable, { l: 1 });
    expect(cheap.status).toBe(200);
    expect(cheap.body.errors).toBeUndefined();
    const costly = await gql(byVariable, { l: 100 });
    expect(costly.status).toBe(400);
    expect(costly.body.errors?.[0].extensions?.code).toBe('BAD_REQUEST');
    expect((await gql(byVariable, { l: 1 })).status).toBe(200);
  });
});

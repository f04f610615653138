// The access matrix of docs/auth.md: anonymous, owner, other user and admin × list, get,
// create, update, delete × every setting value, asserting statuses and what lists contain.
// Expectations are written out per rule value here, not derived from access.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';

type Actor = 'anonymous' | 'owner' | 'other' | 'admin';
type Read = 'public' | 'private' | 'only-user';
type Write = 'public' | 'private';
type Update = 'private' | 'only-user';
interface Setting { read: Read; write: Write; update: Update; remove?: Update }

const ACTORS: Actor[] = ['anonymous', 'owner', 'other', 'admin'];
const READS: Read[] = ['public', 'private', 'only-user'];
const WRITES: Write[] = ['public', 'private'];
const UPDATES: Update[] = ['private', 'only-user'];
const REMOVES: Array<Update | undefined> = ['private', 'only-user', undefined];

/** Status of an operation on a record owned by `owner`, for each rule value and actor. */
const EXPECT = {
  // public: anyone; private: signed in; only-user: the owner (others 403) and admins.
  onOwnersRecord: {
    public: { anonymous: 200, owner: 200, other: 200, admin: 200 },
    private: { anonymous: 401, owner: 200, other: 200, admin: 200 },
    'only-user': { anonymous: 401, owner: 200, other: 403, admin: 200 },
  },
  create: {
    public: { anonymous: 201, owner: 201, other: 201, admin: 201 },
    private: { anonymous: 401, owner: 201, other: 201, admin: 201 },
  },
} as const;
const DELETED = (status: number) => (status === 200 ? 204 : status);
/** A change of a record needs both rules (docs/database.md): the caller must be able to read
 *  it (otherwise the answer is GET's), then the update or remove rule decides. */
const CHANGE = (read: Read, rule: Update, who: Actor) => {
  const readStatus = EXPECT.onOwnersRecord[read][who];
  return readStatus !== 200 ? readStatus : EXPECT.onOwnersRecord[rule][who];
};

let t: TestServer;
const tokens: Record<Actor, string | null> = { anonymous: null, owner: null, other: null, admin: null };
const ids: Record<Actor, string> = { anonymous: '', owner: '', other: '', admin: '' };

beforeAll(async () => {
  t = await startTestServer();
  tokens.admin = t.adminToken;
  ids.admin = JSON.parse(Buffer.from(t.adminToken.split('.')[1], 'base64url').toString()).sub;
  for (const who of ['owner', 'other'] as const) {
    const res = await t.req('POST', '/auth/register', { token: null, body: { email: `${who}@matrix.test`, password: 'password-123', name: who } });
    expect(res.status).toBe(201);
    tokens[who] = res.body.token;
    ids[who] = res.body.user._id;
  }
});
afterAll(async () => { await t.close(); });

const as = (who: Actor) => ({ token: tokens[who] });
const settingName = (s: Setting) => `read=${s.read} write=${s.write} update=${s.update} remove=${s.remove ?? '(update)'}`;

let seq = 0;
async function collection(setting: Setting) {
  const _id = `m${++seq}`;
  const res = await t.req('POST', '/database', { body: { _id, name: settingName(setting), setting } });
  expect(res.status, res.text).toBe(201);
  // Records of the owner and of the other user, and one of the admin.
  const make = async (who: Actor, title: string) => {
    const r = await t.req('POST', `/database/${_id}`, { ...as(who), body: { title } });
    expect(r.status, r.text).toBe(201);
    expect(r.body._owner).toBe(ids[who]);
    return r.body._id as string;
  };
  const owned = [await make('owner', 'o1'), await make('owner', 'o2')];
  const others = [await make('other', 'x1')];
  const admins = [await make('admin', 'a1')];
  return { _id, owned, others, admins };
}

const settings: Setting[] = [];
for (const read of READS) for (const write of WRITES) for (const update of UPDATES) for (const remove of REMOVES) {
  settings.push({ read, write, update, ...(remove ? { remove } : {}) });
}

describe.each(settings)('collection with %o', (setting) => {
  it('gives each caller exactly the rights the setting says', async () => {
    const c = await collection(setting);
    const all = [...c.owned, ...c.others, ...c.admins].sort();
    const failures: string[] = [];
    const check = (what: string, got: unknown, want: unknown) => {
      if (JSON.stringify(got) !== JSON.stringify(want)) failures.push(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
    };

    for (const who of ACTORS) {
      // list
      const list = await t.req('GET', `/database/${c._id}?limit=100`, as(who));
      const listStatus = setting.read === 'public' || who !== 'anonymous' ? 200 : 401;
      check(`${who} list status`, list.status, listStatus);
      if (list.status === 200) {
        const visible = setting.read === 'only-user' && who !== 'admin'
          ? (who === 'owner' ? c.owned : who === 'other' ? c.others : [])
          : all;
        const got = (list.body.data as Array<{ _id: string }>).map((r) => r._id).sort();
        check(`${who} list ids`, got, [...visible].sort());
        check(`${who} list total`, list.body.meta.total, visible.length);
        const count = await t.req('GET', `/database/${c._id}?limit=0`, as(who));
        check(`${who} count-only total`, count.body.meta?.total, visible.length);
        const filtered = await t.req('GET', `/database/${c._id}?filter[_owner]=${ids.owner}`, as(who));
        const ownerVisible = setting.read === 'only-user' && who !== 'admin' && who !== 'owner' ? 0 : c.owned.length;
        check(`${who} list filtered on the owner`, filtered.body.meta?.total, ownerVisible);
      }

      // get a record of the owner
      const get = await t.req('GET', `/database/${c._id}/${c.owned[0]}`, as(who));
      check(`${who} get`, get.status, EXPECT.onOwnersRecord[setting.read][who]);
      if (get.status === 200) check(`${who} get body`, get.body.title, 'o1');

      // create
      const created = await t.req('POST', `/database/${c._id}`, { ...as(who), body: { title: `by ${who}` } });
      check(`${who} create`, created.status, EXPECT.create[setting.write][who]);
      if (created.status === 201) check(`${who} create _owner`, created.body._owner, who === 'anonymous' ? undefined : ids[who]);

      // update a record of the owner
      const upd = await t.req('PUT', `/database/${c._id}/${c.owned[1]}`, { ...as(who), body: { title: `o2 by ${who}` } });
      check(`${who} update`, upd.status, CHANGE(setting.read, setting.update, who));
      if (upd.status === 200) check(`${who} update keeps _owner`, upd.body._owner, ids.owner);

      // delete a fresh record of the owner
      const victim = await t.req('POST', `/database/${c._id}`, { ...as('owner'), body: { title: 'victim' } });
      const del = await t.req('DELETE', `/database/${c._id}/${victim.body._id}`, as(who));
      check(`${who} delete`, del.status, DELETED(CHANGE(setting.read, setting.remove ?? setting.update, who)));
      const after = await t.req('GET', `/database/${c._id}/${victim.body._id}`, as('admin'));
      check(`${who} delete effect`, after.status, del.status === 204 ? 404 : 200);
      if (del.status !== 204) await t.req('DELETE', `/database/${c._id}/${victim.body._id}`, as('admin'));
      // Remove what this actor created, so that the next actor's list sees the fixture only.
      if (created.status === 201) await t.req('DELETE', `/database/${c._id}/${created.body._id}`, as('admin'));
    }
    expect(failures, settingName(setting)).toEqual([]);
  });
});

describe('owner and refusals in detail', () => {
  it('records the owner, keeps _owner read-only, and errors in the contract shape', async () => {
    const c = await collection({ read: 'only-user', write: 'public', update: 'only-user' });
    const forged = await t.req('POST', `/database/${c._id}`, { ...as('other'), body: { title: 'x', _owner: ids.owner } });
    expect(forged.status).toBe(422);
    expect(forged.body.error.details).toMatchObject({ field: '_owner', reason: 'read_only' });
    const steal = await t.req('PUT', `/database/${c._id}/${c.owned[0]}`, { ...as('owner'), body: { _owner: ids.other } });
    expect(steal.status).toBe(422);
    expect(steal.body.error.details).toMatchObject({ field: '_owner', reason: 'read_only' });

    const denied = await t.req('GET', `/database/${c._id}/${c.owned[0]}`, as('other'));
    expect(denied.body).toEqual({ error: { code: 'FORBIDDEN', message: expect.any(String), details: {} } });
    const anon = await t.req('GET', `/database/${c._id}`, as('anonymous'));
    expect(anon.body.error.code).toBe('UNAUTHORIZED');

    // An anonymous record (write public) has no owner: under only-user nobody but an admin reaches it.
    const orphan = await t.req('POST', `/database/${c._id}`, { token: null, body: { title: 'anon' } });
    expect(orphan.status).toBe(201);
    expect(orphan.body._owner).toBeUndefined();
    expect((await t.req('PUT', `/database/${c._id}/${orphan.body._id}`, { ...as('owner'), body: { title: 'mine?' } })).status).toBe(403);
    expect((await t.req('PUT', `/database/${c._id}/${orphan.body._id}`, { ...as('admin'), body: { title: 'admin' } })).status).toBe(200);

    // A bad token is a 401 even on a public collection.
    const pub = await collection({ read: 'public', write: 'public', update: 'private' });
    expect((await t.req('GET', `/database/${pub._id}`, { token: 'garbage' })).status).toBe(401);
    // Deleted users lose access at once.
    const gone = await t.req('POST', '/auth/register', { token: null, body: { email: 'gone@matrix.test', password: 'password-123' } });
    expect((await t.req('GET', `/database/${pub._id}`, { token: gone.body.token })).status).toBe(200);
    await t.req('DELETE', `/users/${gone.body.user._id}`);
    expect((await t.req('GET', `/database/${pub._id}`, { token: gone.body.token })).status).toBe(401);
  });

  it('keeps collections, fields, views and indexes for admins', async () => {
    const c = await collection({ read: 'public', write: 'public', update: 'private' });
    for (const [method, path, body] of [
      ['GET', '/database'], ['POST', '/database', { _id: 'nope' }], ['PUT', `/database/${c._id}`, { name: 'x' }], ['DELETE', `/database/${c._id}`],
      ['GET', `/database/${c._id}/fields`], ['POST', `/database/${c._id}/fields`, { _id: 'f', name: 'f', type: 'string' }],
      ['GET', `/database/${c._id}/views`], ['GET', `/database/${c._id}/indexes`],
    ] as Array<[string, string, unknown?]>) {
      expect((await t.req(method, path, { ...as('owner'), body })).status, `${method} ${path}`).toBe(403);
      expect((await t.req(method, path, { token: null, body })).status, `${method} ${path}`).toBe(401);
    }
  });
});

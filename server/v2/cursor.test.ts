// v2 list paging and filters over HTTP, on both drivers: keyset cursors that never skip or repeat
// a record while others are created or deleted, `prev`, offset, bad cursors, and `or` groups.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test/harness.js';
import { makeCollection, v2Client } from './v2-client.js';

let t: TestServer;
let v2: ReturnType<typeof v2Client>;

beforeAll(async () => {
  t = await startTestServer();
  v2 = v2Client(t);
  await makeCollection(t, 'items', [{ _id: 'title', name: 'Title', type: 'string' }, { _id: 'rank', name: 'Rank', type: 'integer' }]);
  for (let i = 0; i < 30; i++) await t.req('POST', '/database/items', { body: { _id: `i${String(i).padStart(2, '0')}`, title: `t${i}`, rank: i % 4 } });
});
afterAll(async () => { await t?.close(); });

type Rec = { _id: string; rank?: number };
const ids = (page: { data: Rec[] }) => page.data.map((d) => d._id);
const order = (a: Rec, b: Rec) => (a.rank! - b.rank!) || (a._id < b._id ? -1 : 1);

/** Follows `next` from the first page to the end; `between` runs after each page. */
async function walk(query: string, between?: (n: number) => Promise<void>) {
  const seen: Rec[] = [];
  let res = await v2('GET', `/database/items?${query}`);
  for (let n = 0; ; n++) {
    expect(res.status).toBe(200);
    seen.push(...res.body.data);
    expect(res.body.pagination.hasMore).toBe(res.body.pagination.next !== null);
    if (!res.body.pagination.next) break;
    await between?.(n);
    res = await v2('GET', `/database/items?${query}&cursor=${encodeURIComponent(res.body.pagination.next)}`);
  }
  return seen;
}

describe('cursor pagination', () => {
  it('walks the same pages, both ways, when the sort field is indexed (a page read from the ordered index on PostgreSQL)', async () => {
    await makeCollection(t, 'ranked', [{ _id: 'rank', name: 'Rank', type: 'json' }]);
    expect((await t.req('POST', '/database/ranked/indexes', { body: { fields: ['rank'] } })).status).toBe(201);
    // Ties on every value; arrays and a string longer than 200 characters, which sort apart.
    const ranks: unknown[] = [3, 1, 2, 'a', 'x'.repeat(250), ['b'], [1, 2], true, null, 2.5];
    await makeCollection(t, 'unranked', [{ _id: 'rank', name: 'Rank', type: 'json' }]);
    for (let i = 0; i < 40; i++) {
      const body = { _id: `r${String(i).padStart(2, '0')}`, rank: ranks[i % ranks.length] };
      expect((await t.req('POST', '/database/ranked', { body })).status).toBe(201);
      expect((await t.req('POST', '/database/unranked', { body })).status).toBe(201);
    }
    for (const sort of ['rank', '-rank']) {
      const all = (await v2('GET', `/database/ranked?sort=${sort}&limit=100`)).body.data.map((d: Rec) => d._id);
      // The same order as the same records without an index (sorted whole).
      expect(all).toEqual((await v2('GET', `/database/unranked?sort=${sort}&limit=100`)).body.data.map((d: Rec) => d._id));
      const v1Pages = [];
      for (let offset = 0; offset < 40; offset += 7) v1Pages.push(...(await t.req('GET', `/database/ranked?sort=${sort}&limit=7&offset=${offset}`)).body.data.map((d: Rec) => d._id));
      expect(v1Pages).toEqual(all);
      const seen: string[] = [];
      let res = await v2('GET', `/database/ranked?sort=${sort}&limit=6`);
      for (;;) {
        seen.push(...ids(res.body));
        if (!res.body.pagination.next) break;
        res = await v2('GET', `/database/ranked?sort=${sort}&limit=6&cursor=${encodeURIComponent(res.body.pagination.next)}`);
      }
      expect(seen).toEqual(all);
      const back = await v2('GET', `/database/ranked?sort=${sort}&limit=6&cursor=${encodeURIComponent(res.body.pagination.prev)}`);
      expect(ids(back.body)).toEqual(all.slice(-(all.length % 6 || 6) - 6, -(all.length % 6 || 6)));
    }
  });

  it('walks a sorted list with ties (broken by _id) page by page, forward and back', async () => {
    const seen = await walk('sort=rank&limit=4');
    expect(seen.map((d) => d._id)).toEqual([...seen].sort(order).map((d) => d._id));
    expect(new Set(seen.map((d) => d._id)).size).toBe(30);

    const p1 = await v2('GET', '/database/items?sort=rank&limit=4');
    expect(p1.body.pagination.prev).toBeNull();
    const p2 = await v2('GET', `/database/items?sort=rank&limit=4&cursor=${p1.body.pagination.next}`);
    const p3 = await v2('GET', `/database/items?sort=rank&limit=4&cursor=${p2.body.pagination.next}`);
    expect(p3.body.meta).toMatchObject({ total: 30, limit: 4 });
    expect(p3.body.meta).not.toHaveProperty('offset');
    const back2 = await v2('GET', `/database/items?sort=rank&limit=4&cursor=${p3.body.pagination.prev}`);
    expect(ids(back2.body)).toEqual(ids(p2.body));
    const back1 = await v2('GET', `/database/items?sort=rank&limit=4&cursor=${back2.body.pagination.prev}`);
    expect(ids(back1.body)).toEqual(ids(p1.body));
    expect(back1.body.pagination.prev).toBeNull();
    expect(ids((await v2('GET', `/database/items?sort=rank&limit=4&cursor=${back1.body.pagination.next}`)).body)).toEqual(ids(p2.body));
  });

  it('descending and default orders page the same way', async () => {
    const down = await walk('sort=-rank,title&limit=7');
    expect(down.map((d) => d.rank)).toEqual([...down.map((d) => d.rank)].sort((a, b) => b! - a!));
    expect(new Set(down.map((d) => d._id)).size).toBe(30);
    const byDefault = await walk('limit=6&fields=title');
    expect(new Set(byDefault.map((d) => d._id)).size).toBe(30);
    expect(byDefault[0]).toEqual({ _id: 'i00', title: 't0' });
  });

  it('never skips or repeats a record while others are created or deleted between pages', async () => {
    const doomed = ['i05', 'i26', 'i13'];
    const created: string[] = [];
    const seen = await walk('sort=rank&limit=5', async (n) => {
      // Before the reader's position and after it: a deletion and a creation each time.
      const del = doomed[n];
      if (del) expect((await v2('DELETE', `/database/items/${del}`)).status).toBe(204);
      const made = await v2('POST', '/database/items', { body: { _id: `new${n}`, title: 'n', rank: n % 2 === 0 ? 0 : 3 } });
      created.push(made.body.data._id);
    });
    const seenIds = seen.map((d) => d._id);
    expect(new Set(seenIds).size).toBe(seenIds.length); // no repeats
    expect(seenIds).toEqual([...seen].sort(order).map((d) => d._id)); // in order
    for (let i = 0; i < 30; i++) {
      const id = `i${String(i).padStart(2, '0')}`;
      if (!doomed.includes(id)) expect(seenIds).toContain(id); // none skipped
    }
    for (const id of created) await v2('DELETE', `/database/items/${id}`);
    for (const id of doomed) await t.req('POST', '/database/items', { body: { _id: id, title: `t${Number(id.slice(1))}`, rank: Number(id.slice(1)) % 4 } });
  });

  it('offset still works and gives a prev cursor', async () => {
    const all = await v2('GET', '/database/items?sort=rank&limit=100');
    const page = await v2('GET', '/database/items?sort=rank&limit=4&offset=8');
    expect(page.body.meta).toMatchObject({ total: 30, limit: 4, offset: 8 });
    expect(ids(page.body)).toEqual(ids(all.body).slice(8, 12));
    const prev = await v2('GET', `/database/items?sort=rank&limit=4&cursor=${page.body.pagination.prev}`);
    expect(ids(prev.body)).toEqual(ids(all.body).slice(4, 8));
    const next = await v2('GET', `/database/items?sort=rank&limit=4&cursor=${page.body.pagination.next}`);
    expect(ids(next.body)).toEqual(ids(all.body).slice(12, 16));
  });

  it('a malformed, altered or foreign cursor is a 400 naming cursor', async () => {
    const first = await v2('GET', '/database/items?sort=rank&limit=2');
    const cursor = first.body.pagination.next as string;
    await makeCollection(t, 'others');
    const ws = await t.consoleReq('POST', '/workspaces', { _id: 'other', adminEmail: 'o@example.com', adminPassword: 'other-password-1' });
    expect(ws.status).toBe(201);
    const otherToken = (await t.consoleReq('POST', '/workspaces/other/token')).body.token;
    await fetch(`${t.url}/app/other/database`, { method: 'POST', headers: { authorization: `Bearer ${otherToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ _id: 'items', name: 'items', setting: { read: 'public', write: 'private', update: 'private' } }) });
    const payload = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    const altered = Buffer.from(JSON.stringify({ ...payload, b: 'x'.repeat(22) })).toString('base64url');
    const refusals = [
      await v2('GET', `/database/items?sort=rank&limit=2&cursor=%%%`),
      await v2('GET', `/database/items?sort=rank&limit=2&cursor=${Buffer.from('{"p":1}').toString('base64url')}`),
      await v2('GET', `/database/items?sort=rank&limit=2&cursor=${altered}`),
      await v2('GET', `/database/others?sort=rank&limit=2&cursor=${cursor}`),
      await v2('GET', `/database/items?sort=-rank&limit=2&cursor=${cursor}`),
      await v2('GET', `/database/items?sort=rank&filter[rank]=1&limit=2&cursor=${cursor}`),
      await v2('GET', `/database/items?sort=rank&limit=2&offset=2&cursor=${cursor}`),
      await fetch(`${t.url}/v2/app/other/database/items?sort=rank&limit=2&cursor=${cursor}`, { headers: { authorization: `Bearer ${otherToken}` } })
        .then(async (r) => ({ status: r.status, body: await r.json() })),
    ];
    for (const r of refusals) {
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error.details.field).toBe('cursor');
    }
    // The same list with another limit or fields is the same list.
    expect((await v2('GET', `/database/items?sort=rank&limit=3&fields=title&cursor=${cursor}`)).status).toBe(200);
  });

  it('pages by cursor through a list long enough to be read through the sort index', async () => {
    await makeCollection(t, 'big', [{ _id: 'n', name: 'N', type: 'integer' }]);
    expect((await t.req('POST', '/database/big/indexes', { body: { _id: 'by-n', fields: ['n'], unique: false } })).status).toBe(201);
    const docs = Array.from({ length: 600 }, (_, i) => ({ _id: `b${String(i).padStart(3, '0')}`, n: i % 50 }));
    for (let i = 0; i < docs.length; i += 50) await Promise.all(docs.slice(i, i + 50).map((d) => t.req('POST', '/database/big', { body: d })));
    for (const sort of ['n', '-n', '']) {
      const seen: string[] = [];
      let res = await v2('GET', `/database/big?sort=${sort}&limit=100&fields=n`);
      const pages = [res.body];
      while (res.body.pagination.next) {
        res = await v2('GET', `/database/big?sort=${sort}&limit=100&fields=n&cursor=${res.body.pagination.next}`);
        pages.push(res.body);
      }
      for (const p of pages) seen.push(...ids(p));
      expect(seen.length).toBe(600);
      expect(new Set(seen).size).toBe(600);
      const offsetAll = await v2('GET', `/database/big?sort=${sort}&limit=100&offset=300&fields=n`);
      expect(ids(offsetAll.body)).toEqual(seen.slice(300, 400));
    }
  });
});

describe('or groups', () => {
  beforeAll(async () => {
    await makeCollection(t, 'people', [{ _id: 'role', name: 'Role', type: 'string' }, { _id: 'age', name: 'Age', type: 'integer' }]);
    const people = [['ann', 'admin', 25], ['bob', 'user', 31], ['cid', 'user', 22], ['dan', 'admin', 40], ['eve', 'guest', 30], ['fay', 'user', 29]] as const;
    for (const [_id, role, age] of people) await t.req('POST', '/database/people', { body: { _id, role, age } });
  });
  const names = (r: { body: { data: Rec[] } }) => r.body.data.map((d) => d._id).sort();

  it('matches any branch; each branch ANDs its conditions, $and once inside; ANDed with the other filters', async () => {
    const r = await v2('GET', '/database/people?filter[$or][0][role]=admin&filter[$or][1][age][$gte]=30');
    expect(r.status).toBe(200);
    expect(names(r)).toEqual(['ann', 'bob', 'dan', 'eve']);
    expect(r.body.meta.total).toBe(4);
    const branchAnd = await v2('GET', '/database/people?filter[$or][0][role]=user&filter[$or][0][age][$lt]=30&filter[$or][1][role]=guest');
    expect(names(branchAnd)).toEqual(['cid', 'eve', 'fay']);
    const explicitAnd = await v2('GET', '/database/people?filter[$or][0][$and][0][role]=user&filter[$or][0][$and][1][age][$lt]=30&filter[$or][1][role]=guest');
    expect(names(explicitAnd)).toEqual(['cid', 'eve', 'fay']);
    const withFilter = await v2('GET', '/database/people?filter[age][$lt]=30&filter[$or][0][role]=admin&filter[$or][1][role]=guest');
    expect(names(withFilter)).toEqual(['ann']);
    const inList = await v2('GET', '/database/people?filter[$or][0][role][$in]=guest,admin&filter[$or][1][age]=22');
    expect(names(inList)).toEqual(['ann', 'cid', 'dan', 'eve']);
  });

  it('pages through an or filter by cursor', async () => {
    const q = 'filter[$or][0][role]=user&filter[$or][1][role]=admin&sort=-age&limit=2';
    const p1 = await v2('GET', `/database/people?${q}`);
    const p2 = await v2('GET', `/database/people?${q}&cursor=${p1.body.pagination.next}`);
    const p3 = await v2('GET', `/database/people?${q}&cursor=${p2.body.pagination.next}`);
    expect([...ids(p1.body), ...ids(p2.body), ...ids(p3.body)]).toEqual(['dan', 'bob', 'fay', 'ann', 'cid']);
    expect(p3.body.pagination).toMatchObject({ next: null, hasMore: false });
    const otherOr = await v2('GET', `/database/people?filter[$or][0][role]=user&sort=-age&limit=2&cursor=${p1.body.pagination.next}`);
    expect(otherOr.status).toBe(400);
  });

  it('nesting deeper than $and inside $or is a 400 naming it; v1 keeps refusing $or', async () => {
    for (const key of ['filter[$or][0][$and][0][$or][0][role]', 'filter[$or][0][$or][0][role]', 'filter[$or][0][$and][0][$and]']) {
      const r = await v2('GET', `/database/people?${key}=admin`);
      expect(r.status).toBe(400);
      expect(r.body.error.details.field).toBe('filter[$or]');
      expect(r.body.error.message).toContain(key);
    }
    expect((await v2('GET', '/database/people?filter[$or][x][role]=admin')).status).toBe(400);
    expect((await v2('GET', '/database/people?filter[$or][0][role][$bad]=admin')).status).toBe(400);
    const v1 = await t.req('GET', '/database/people?filter[$or][0][role]=admin');
    expect(v1.status).toBe(400);
    expect(v1.body.error.message).toContain('Malformed filter parameter');
    expect((await t.req('GET', '/database/people?cursor=abc')).status).toBe(200); // v1 ignores it, as before
  });
});

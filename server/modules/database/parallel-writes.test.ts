// Record writes at the same moment, on whichever driver the harness runs (the PostgreSQL run
// re-runs this file): parallel partial updates of one record are applied one after another
// (on PostgreSQL a patch is one statement merging its fields where the row lives, and the row's
// lock orders them; a change that needs the record read first writes it only if it is still the
// version read, and reads it again otherwise), every answered change survives and each answer shows the record right after its own change;
// parallel creates with one `_id` store one record and answer 409 naming `_id` to the rest.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  expect((await t.req('POST', '/database', { body: { _id: 'race', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
});
afterAll(async () => { await t?.close(); });

describe('record writes at the same moment', () => {
  it('50 parallel PATCHes of one record each add their key: all survive, the answers show 1..50 keys', async () => {
    const rec = await t.req('POST', '/database/race', { body: { title: 'x' } });
    expect(rec.status).toBe(201);
    const n = 50;
    const answers = await Promise.all(Array.from({ length: n }, (_, i) => t.req('PATCH', `/database/race/${rec.body._id}`, { body: { [`k${i}`]: i } })));
    for (const [i, a] of answers.entries()) {
      expect(a.status, a.text).toBe(200);
      expect(a.body[`k${i}`]).toBe(i);
      expect(a.body.title).toBe('x');
    }
    const seen = answers.map((a) => Object.keys(a.body).filter((k) => /^k\d+$/.test(k)).length).sort((a, b) => a - b);
    expect(seen).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    const final = (await t.req('GET', `/database/race/${rec.body._id}`)).body;
    for (let i = 0; i < n; i++) expect(final[`k${i}`], `k${i}`).toBe(i);
  });

  it('20 parallel creates with one _id: one is stored, the others answer 409 naming _id', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => t.req('POST', '/database/race', { body: { _id: 'same-id', n: i } })));
    const made = answers.filter((a) => a.status === 201);
    expect(made).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 201)) {
      expect(a.status, a.text).toBe(409);
      expect(a.body.error).toMatchObject({ code: 'CONFLICT', details: { field: '_id' } });
      expect(a.body.error.message).toBe("A record with _id 'same-id' already exists");
    }
    expect((await t.req('GET', '/database/race/same-id')).body).toEqual(made[0].body);
  });
});

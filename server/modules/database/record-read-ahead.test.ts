// A record GET by id on a database (PostgreSQL) reads the record while the token is being
// checked, so that the record, the session and the user go to the database in one statement
// (service.ts readRecordAhead). What is answered must not change: the caller's access is decided
// before the record is shown, a refused request shows nothing of it, and a GET sees every write
// finished before it. On the embedded driver the same answers are checked (no read ahead there).
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { pgEngineOf, startTestServer, type TestServer, type TestUser } from '../../test/harness.js';
import { recordStatements } from '../../test/pg-statements.js';

let t: TestServer;
let owner: TestUser;
let other: TestUser;
beforeAll(async () => {
  t = await startTestServer();
  await t.req('POST', '/database', { body: { _id: 'notes', setting: { read: 'only-user', write: 'private', update: 'only-user' } } });
  await t.req('POST', '/database', { body: { _id: 'members', setting: { read: 'private', write: 'private', update: 'private' } } });
  owner = await t.user('Owner');
  other = await t.user('Other');
});
afterAll(async () => { await t.close(); });
afterEach(() => { vi.restoreAllMocks(); });

/** The read-by-id statements the server's database runs from now on (none on the embedded
 *  driver), with the ids each asked for. */
function readStatements(): Array<{ text: string; ids: string[] }> {
  const engine = pgEngineOf(t.srv);
  if (!engine) return [];
  return recordStatements(engine.db, (text, values) => (/ AS v FROM /.test(text) ? { text, ids: values.flat() as string[] } : undefined));
}

describe('a record GET by id, read while the token is checked', () => {
  it('answers the record, read in the same statement as the caller\'s session and user', async () => {
    const made = await t.req('POST', '/database/members', { body: { name: 'Ann' }, token: owner.token });
    expect(made.status).toBe(201);
    const seen = readStatements();
    const got = await t.req('GET', `/database/members/${made.body._id}`, { token: other.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(made.body);
    if (pgEngineOf(t.srv)) {
      const withRecord = seen.filter((s) => s.ids.includes(made.body._id));
      expect(withRecord).toHaveLength(1);
      // The caller's user is read in that statement too: one round trip for the whole request.
      expect(withRecord[0].ids).toContain(other._id);
      expect(withRecord[0].text).toMatch(/UNION ALL/);
    }
  });

  it('on v2 too: one statement, and a refusal shows nothing of the record', async () => {
    const made = await t.req('POST', '/database/notes', { body: { text: 'v2 words' }, token: owner.token });
    const v2 = (token: string) => fetch(`${t.url}/v2/app/${t.workspace}/database/notes/${made.body._id}`, {
      // Uncompressed: a compressible answer takes v2's ordinary route.
      headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'identity' },
    });
    const seen = readStatements();
    const mine = await v2(owner.token);
    expect(mine.status).toBe(200);
    expect(await mine.text()).toContain('v2 words');
    if (pgEngineOf(t.srv)) {
      const withRecord = seen.filter((s) => s.ids.includes(made.body._id));
      expect(withRecord).toHaveLength(1);
      expect(withRecord[0].ids).toContain(owner._id);
    }
    const refused = await v2(other.token);
    expect(refused.status).toBe(403);
    expect(await refused.text()).not.toContain('v2 words');
  });

  it('decides access before showing the record: another user\'s note is refused, without its content', async () => {
    const note = await t.req('POST', '/database/notes', { body: { text: 'secret words' }, token: owner.token });
    expect(note.status).toBe(201);
    const refused = await t.req('GET', `/database/notes/${note.body._id}`, { token: other.token });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect(refused.text).not.toContain('secret words');
    const anonymous = await t.req('GET', `/database/notes/${note.body._id}`, { token: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).not.toContain('secret words');
    const badToken = await t.req('GET', `/database/notes/${note.body._id}`, { token: `${owner.token.slice(0, -2)}xx` });
    expect(badToken.status).toBe(401);
    expect(badToken.text).not.toContain('secret words');
    const mine = await t.req('GET', `/database/notes/${note.body._id}`, { token: owner.token });
    expect(mine.status).toBe(200);
    expect(mine.body.text).toBe('secret words');
  });

  it('reads nothing ahead for credentials that fail before the database is asked, nor for an API key', async () => {
    // A forged token fails its signature check, and any well-formed API key value is looked up:
    // a record read started with them would let an anonymous caller have any record read (and
    // a 401's time follow its size). Such callers wait for their refusal as before.
    const note = await t.req('POST', '/database/members', { body: { text: 'not for strangers' }, token: owner.token });
    expect(note.status).toBe(201);
    const made = await fetch(`${t.url}/v2/app/${t.workspace}/api-keys`, {
      method: 'POST', headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'files only', scopes: ['storage:read'] }),
    });
    expect(made.status).toBe(201);
    const filesKey = ((await made.json()) as { data: { key: string } }).data.key;
    const seen = readStatements();
    const path = `/database/members/${note.body._id}`;
    const refusals = [
      [await t.req('GET', path, { token: null, headers: { 'x-api-key': `hbk_${'A'.repeat(16)}_${'b'.repeat(43)}` } }), 401],
      [await t.req('GET', path, { token: `${owner.token.slice(0, -2)}xx` }), 401],
      [await t.req('GET', path, { token: null, headers: { 'x-api-key': filesKey } }), 403],
    ] as const;
    for (const [res, status] of refusals) {
      expect(res.status).toBe(status);
      expect(res.text).not.toContain('not for strangers');
    }
    // Statements go out in the order they were asked for: once this GET is answered, any read
    // the refused ones began has been sent.
    const mine = await t.req('GET', path, { token: other.token });
    expect(mine.status).toBe(200);
    if (pgEngineOf(t.srv)) {
      const withRecord = seen.filter((st) => st.ids.includes(note.body._id));
      expect(withRecord).toHaveLength(1); // the signed-in user's own GET, read ahead with its session
      expect(withRecord[0].ids).toContain(other._id);
    }
  });

  it('a signed-out session is refused even though its record was read with it', async () => {
    const u = await t.user('Leaving');
    const rec = await t.req('POST', '/database/members', { body: { name: 'Kept' }, token: u.token });
    expect((await t.req('GET', `/database/members/${rec.body._id}`, { token: u.token })).status).toBe(200);
    expect((await t.req('POST', '/auth/logout', { token: u.token, body: {} })).status).toBeLessThan(300);
    const after = await t.req('GET', `/database/members/${rec.body._id}`, { token: u.token });
    expect(after.status).toBe(401);
    expect(after.text).not.toContain('Kept');
  });

  it('sees every write finished before it, and answers 404 for a missing record or collection', async () => {
    const rec = await t.req('POST', '/database/members', { body: { n: 1 }, token: owner.token });
    for (let n = 2; n <= 4; n++) {
      expect((await t.req('PATCH', `/database/members/${rec.body._id}`, { body: { n }, token: owner.token })).status).toBe(200);
      expect((await t.req('GET', `/database/members/${rec.body._id}`, { token: other.token })).body.n).toBe(n);
    }
    // Many at once (one statement on PostgreSQL), each with its own answer.
    const answers = await Promise.all([1, 2, 3].map(() => t.req('GET', `/database/members/${rec.body._id}`, { token: other.token })));
    expect(answers.map((a) => [a.status, a.body.n])).toEqual([[200, 4], [200, 4], [200, 4]]);
    expect((await t.req('DELETE', `/database/members/${rec.body._id}`, { token: owner.token })).status).toBe(204);
    const gone = await t.req('GET', `/database/members/${rec.body._id}`, { token: other.token });
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('NOT_FOUND');
    const noCollection = await t.req('GET', '/database/nothing-here/abc', { token: other.token });
    expect(noCollection.status).toBe(404);
    expect(noCollection.body.error.message).toMatch(/Collection/);
  });

  it('a collection deleted and made again between two GETs answers from the new one', async () => {
    await t.req('POST', '/database', { body: { _id: 'swap', setting: { read: 'private', write: 'private', update: 'private' } } });
    const first = await t.req('POST', '/database/swap', { body: { _id: 'same-id', v: 'old' }, token: owner.token });
    expect(first.status).toBe(201);
    expect((await t.req('GET', '/database/swap/same-id', { token: other.token })).body.v).toBe('old');
    expect((await t.req('DELETE', '/database/swap')).status).toBe(204);
    expect((await t.req('GET', '/database/swap/same-id', { token: other.token })).status).toBe(404);
    await t.req('POST', '/database', { body: { _id: 'swap', setting: { read: 'private', write: 'private', update: 'private' } } });
    expect((await t.req('GET', '/database/swap/same-id', { token: other.token })).status).toBe(404);
    await t.req('POST', '/database/swap', { body: { _id: 'same-id', v: 'new' }, token: owner.token });
    expect((await t.req('GET', '/database/swap/same-id', { token: other.token })).body.v).toBe('new');
  });
});

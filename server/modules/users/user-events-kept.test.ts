// A user write's event is kept with the write (PostgreSQL: a row of homebase_outbox written by
// the same statement; embedded stores with a data folder: a `$$event` line appended to the users
// store's file with the document), and what is kept is the event as published: the public user,
// never the password hash, whatever the write (sign-up, created by an admin, password changed,
// deleted).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { pgEngineOf, startTestServer, TEST_DRIVER, type TestServer } from '../../test/harness.js';
import { recordStatements } from '../../test/pg-statements.js';

/** Signs up, is created by the admin, changes password, is deleted: every kind of user write. */
async function userWrites(t: TestServer): Promise<void> {
  const signup = await t.req('POST', '/auth/register', { token: null, body: { email: 'self@example.com', password: 'first-password-1', name: 'Self' } });
  expect(signup.status).toBe(201);
  const made = await t.req('POST', '/users', { body: { email: 'kept@example.com', password: 'first-password-1', name: 'Kept' } });
  expect(made.status).toBe(201);
  expect((await t.req('PATCH', `/users/${made.body._id}`, { body: { password: 'second-password-2', name: 'Kept Too' } })).status).toBe(200);
  expect((await t.req('DELETE', `/users/${made.body._id}`)).status).toBe(204);
}

/** Whether `text` holds a password hash (bcrypt's `$2a$`/`$2b$`) or the field that keeps it. */
const holdsHash = (text: string) => /\$2[aby]\$\d\d\$|passwordHash/.test(text);

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('embedded stores with a data folder', () => {
  let dir: string;
  let t: TestServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'homebase-userevents-'));
    t = await startTestServer({ data: dir });
  });
  afterAll(async () => { await t?.close(); rmSync(dir, { recursive: true, force: true }); });

  it('keep each user event in the users file without the password hash', async () => {
    await userWrites(t);
    const files = filesUnder(dir).filter((f) => f.endsWith('.db'));
    const lines = files.flatMap((f) => readFileSync(f, 'utf8').split('\n'));
    // The users' documents hold their hashes, and the file keeps their events beside them.
    expect(lines.some((l) => !l.startsWith('{"$$event"') && l.includes('"kept@example.com"') && holdsHash(l))).toBe(true);
    const events = lines.filter((l) => l.startsWith('{"$$event"'));
    // The first admin's creation is kept too: only the writes above are counted.
    const ours = events.map((l) => (JSON.parse(l) as { $$event: { type: string; data: { email?: string } } }).$$event)
      .filter((e) => e.data.email === 'self@example.com' || e.data.email === 'kept@example.com');
    expect(ours.map((e) => e.type).sort()).toEqual(['user.created', 'user.created', 'user.deleted', 'user.updated']);
    for (const l of events) expect(holdsHash(l), l).toBe(false);
  });
});

describe.skipIf(TEST_DRIVER !== 'postgres')('PostgreSQL', () => {
  let t: TestServer;
  beforeAll(async () => { t = await startTestServer(); });
  afterAll(async () => { await t?.close(); });
  afterEach(() => { vi.restoreAllMocks(); });

  it('stores each user event in the outbox without the password hash', async () => {
    const db = pgEngineOf(t.srv)!.db;
    // The outbox row's event is the parameter after the write's own (outbox.ts withOutbox).
    const kept = recordStatements(db, (text, values) => (text.includes('INSERT INTO homebase_outbox') ? String(values[values.length - 2]) : undefined));
    await userWrites(t);
    const users = kept.filter((e) => /"type":"user\./.test(e));
    expect(users.map((e) => (JSON.parse(e) as { type: string }).type).sort()).toEqual(['user.created', 'user.created', 'user.deleted', 'user.updated']);
    for (const e of users) expect(holdsHash(e), e).toBe(false);
    for (const r of (await db.query<{ event: string }>('SELECT event::text AS event FROM homebase_outbox')).rows) expect(holdsHash(r.event)).toBe(false);
  });
});

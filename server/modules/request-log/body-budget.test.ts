// The request log keeps the bodies of its newest entries only, up to a number of characters per
// workspace (`requestLogBodyBytes`); older entries keep everything else and say their bodies
// were let go.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RingBuffer, type StoredEntry } from './request-log.js';
import { startTestServer, type TestServer } from '../../test/harness.js';

function entry(seq: number, kept: number): StoredEntry {
  return {
    _id: `r${seq}`, seq, method: 'GET', path: `/x/${seq}`, status: 200, durationMs: 1, wall: 0,
    headers: {}, body: kept ? { n: seq } : undefined, responseText: kept ? 'x'.repeat(kept) : undefined, kept,
  };
}

describe('the ring buffer\'s body budget', () => {
  it('lets the oldest bodies go first and never holds more than its budget, across wrap-arounds', () => {
    const ring = new RingBuffer({ size: 7, bodyBytes: 1000 });
    const pushed: StoredEntry[] = [];
    for (let seq = 1; seq <= 60; seq++) {
      const e = entry(seq, seq % 5 === 0 ? 0 : (seq * 37) % 450); // some without bodies, sizes varied
      pushed.push(e);
      ring.push(e);
      const held = ring.since(0);
      const sum = held.reduce((n, x) => n + x.kept, 0);
      expect(ring.bodyChars).toBe(sum);
      expect(sum).toBeLessThanOrEqual(1000);
      // The entries holding bodies are the newest: once one has let go, every older one has too.
      const firstKeeping = held.findIndex((x) => x.responseText !== undefined);
      if (firstKeeping >= 0) for (const x of held.slice(0, firstKeeping)) expect(x.responseText).toBeUndefined();
    }
    // Entries that were let go hold nothing: no body, no text, nothing counted.
    for (const e of pushed.filter((x) => x.bodiesDropped)) expect([e.body, e.responseText, e.kept]).toEqual([undefined, undefined, 0]);
    expect(ring.since(0).map((e) => e.seq)).toEqual([54, 55, 56, 57, 58, 59, 60]);
  });

  it('does not keep a body bigger than the whole budget, and keeps the entry', () => {
    const ring = new RingBuffer({ size: 3, bodyBytes: 100 });
    ring.push(entry(1, 40));
    ring.push(entry(2, 500));
    const [first, second] = ring.since(0);
    expect(second).toMatchObject({ _id: 'r2', bodiesDropped: true, kept: 0 });
    expect(first.responseText).toHaveLength(40);
    expect(ring.bodyChars).toBe(40);
  });

  it('with a budget of 0 keeps no body at all', () => {
    const ring = new RingBuffer({ size: 3, bodyBytes: 0 });
    ring.push(entry(1, 10));
    expect(ring.since(0)[0]).toMatchObject({ bodiesDropped: true, responseText: undefined });
  });
});

describe('request log bodies over HTTP, within the budget', () => {
  let t: TestServer;
  // About 1,200 characters a create (its body and its answer): the budget holds three or four.
  beforeAll(async () => { t = await startTestServer({ requestLogBodyBytes: 4_000 }); });
  afterAll(async () => { await t.close(); });

  it('shows the newest bodies and says the older ones were let go', async () => {
    expect((await t.req('POST', '/database', { body: { _id: 'notes', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
    const made: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await t.req('POST', '/database/notes', { body: { n: i, text: `${i}`.repeat(500) } });
      expect(res.status).toBe(201);
      made.push(res.body._id);
    }
    const list = await t.consoleReq('GET', `/workspaces/${t.workspace}/requests?limit=500`);
    expect(list.status).toBe(200);
    const creates = (list.body.data as Array<{ _id: string; method: string; path: string }>)
      .filter((e) => e.method === 'POST' && e.path.endsWith('/database/notes')); // newest first
    expect(creates).toHaveLength(8); // every request is still listed

    const details = [];
    for (const e of creates) {
      const d = await t.consoleReq('GET', `/workspaces/${t.workspace}/requests/${e._id}`);
      expect(d.status).toBe(200);
      details.push(d.body);
    }
    // The newest create keeps both bodies, exactly as sent and answered.
    expect(details[0].requestBody).toEqual({ json: { n: 7, text: '7'.repeat(500) } });
    expect(details[0].responseBody.json).toMatchObject({ _id: made[7], n: 7 });
    expect(details[0].bodiesDropped).toBeUndefined();
    // The oldest ones were let go: no bodies, marked, everything else still there.
    expect(details[7]).toMatchObject({ method: 'POST', status: 201, bodiesDropped: true, headers: expect.any(Object) });
    expect(details[7].requestBody).toBeUndefined();
    expect(details[7].responseBody).toBeUndefined();
    // Kept ones are the newest, without a gap.
    const kept = details.map((d) => d.bodiesDropped !== true);
    expect(kept.indexOf(false)).toBeGreaterThan(0);
    expect(kept.slice(kept.indexOf(false)).every((k) => !k)).toBe(true);
  });
});

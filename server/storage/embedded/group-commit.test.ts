// Group commit (DocStore.batched): single-document writes that arrive while the store's queue is
// busy share one append. Each must still be checked against the writes before it in its batch,
// answered only once its line is in the file, and a failed append must fail the whole batch and
// apply none of it.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DocStore } from './doc-store.js';
import { injectDiskFault } from '../disk.js';
import { UniqueViolationError } from '../errors.js';

const dirs: string[] = [];
afterEach(() => { injectDiskFault(undefined); for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

async function open(): Promise<{ s: DocStore; file: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'hb-group-'));
  dirs.push(dir);
  const file = join(dir, 'things.db');
  return { s: await DocStore.open({ filename: file }), file };
}

/** Holds the store's queue until the returned function is called: writes asked meanwhile form one batch. */
function hold(s: DocStore): () => Promise<void> {
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  const held = s.holdWrites(() => gate);
  return async () => { release(); await held; };
}

const settle = <T>(p: Promise<T>) => p.then((v) => ({ ok: true as const, v }), (e: unknown) => ({ ok: false as const, e }));
const docLines = (file: string) => readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l)).filter((d) => !d.$$indexCreated);

describe('group commit', () => {
  it('writes of one batch are checked against each other, answered in order once written, in one append', async () => {
    const { s, file } = await open();
    await s.insert({ _id: 'old', n: 0 });
    const release = hold(s);
    const order: string[] = [];
    const track = <T>(name: string, p: Promise<T>) => settle(p).then((r) => { order.push(name); return r; });
    const a = track('a', s.insert({ _id: 'a', n: 1 }));
    const dup = track('dup', s.insert({ _id: 'a', n: 2 }));
    const ra = track('ra', s.replace('a', { _id: 'a', n: 3 }));
    const gone = track('gone', s.replace('nope', { _id: 'nope', n: 4 }));
    const rm = track('rm', s.remove('old'));
    const rmAgain = track('rmAgain', s.remove('old'));
    const back = track('back', s.insert({ _id: 'old', n: 5 }));
    // Nothing is seen while the batch waits.
    await new Promise((r) => setImmediate(r));
    expect(s.get('a')).toBeUndefined();
    expect(s.get('old')).toMatchObject({ n: 0 });
    await release();
    const results = await Promise.all([a, dup, ra, gone, rm, rmAgain, back]);
    expect(results.map((r) => r.ok)).toEqual([true, false, true, true, true, true, true]);
    expect((results[1] as { e: unknown }).e).toBeInstanceOf(UniqueViolationError);
    expect(results.map((r) => (r.ok ? r.v : 'error'))).toEqual([
      { _id: 'a', n: 1 }, 'error', { _id: 'a', n: 3 }, undefined, true, false, { _id: 'old', n: 5 },
    ]);
    // Writes are answered in order (a refused one at once, before the append).
    expect(order).toEqual(['dup', 'a', 'ra', 'gone', 'rm', 'rmAgain', 'back']);
    expect(s.get('a')).toEqual({ _id: 'a', n: 3 });
    expect(s.get('old')).toEqual({ _id: 'old', n: 5 });
    expect(s.size).toBe(2);
    expect(docLines(file)).toEqual([
      { _id: 'old', n: 0 }, { _id: 'a', n: 1 }, { _id: 'a', n: 3 }, { $$deleted: true, _id: 'old' }, { _id: 'old', n: 5 },
    ]);
    // The file reloads to what was answered.
    await s.detach();
    const again = await DocStore.open({ filename: file });
    expect(again.all()).toEqual([{ _id: 'a', n: 3 }, { _id: 'old', n: 5 }]);
  });

  it('a unique index refuses a value taken earlier in the same batch, and frees one released in it', async () => {
    const { s } = await open();
    await s.ensureIndex({ fieldName: 'email', unique: true });
    await s.insert({ _id: 'u1', email: 'a@x' });
    const release = hold(s);
    const taken = settle(s.insert({ _id: 'u2', email: 'b@x' }));
    const clash = settle(s.insert({ _id: 'u3', email: 'b@x' }));
    const moved = settle(s.replace('u1', { _id: 'u1', email: 'c@x' })); // frees a@x
    const reuse = settle(s.insert({ _id: 'u4', email: 'a@x' }));
    const clashLast = settle(s.insert({ _id: 'u5', email: 'c@x' })); // last of the batch: checked only
    await release();
    const r = await Promise.all([taken, clash, moved, reuse, clashLast]);
    expect(r.map((x) => x.ok)).toEqual([true, false, true, true, false]);
    expect(s.all().map((d) => [d._id, d.email])).toEqual([['u1', 'c@x'], ['u2', 'b@x'], ['u4', 'a@x']]);
    expect(s.findBy('email', 'b@x').map((d) => d._id)).toEqual(['u2']);
    expect(s.findBy('email', 'a@x').map((d) => d._id)).toEqual(['u4']);
  });

  it('a failed append fails every write of its batch and applies none; the next batch goes through', async () => {
    const { s, file } = await open();
    await s.insert({ _id: 'k', n: 0 });
    const before = readFileSync(file, 'utf8');
    const release = hold(s);
    injectDiskFault({ code: 'ENOSPC', path: 'things.db', times: 1 });
    const batch = [settle(s.insert({ _id: 'x' })), settle(s.replace('k', { _id: 'k', n: 1 })), settle(s.remove('k'))];
    await release();
    const r = await Promise.all(batch);
    expect(r.every((x) => !x.ok)).toBe(true);
    expect((r[0] as { e: { code?: string } }).e.code).toBe('INSUFFICIENT_STORAGE');
    expect(s.get('x')).toBeUndefined();
    expect(s.get('k')).toEqual({ _id: 'k', n: 0 });
    expect(s.size).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe(before);
    // The fault was one append (the batch's): the next writes succeed.
    await expect(s.insert({ _id: 'y' })).resolves.toEqual({ _id: 'y' });
    expect(s.size).toBe(2);
  });

  it('a write asked after a queued non-batched write (an index, a swap) runs after it', async () => {
    const { s } = await open();
    const release = hold(s);
    const first = s.insert({ _id: 'p', email: 'same' });
    const index = settle(s.ensureIndex({ fieldName: 'email', unique: true }));
    const second = settle(s.insert({ _id: 'q', email: 'same' }));
    await release();
    await first;
    expect((await index).ok).toBe(true);
    // Had the second insert joined the first's batch it would have run before the index existed.
    const r = await second;
    expect(r.ok).toBe(false);
    expect((r as { e: unknown }).e).toBeInstanceOf(UniqueViolationError);
  });
});

// DocStore.insertNew: a create that checks its id at its turn in the write queue (no section
// around a read and an insert). A taken id resolves to undefined and writes nothing, also when
// the id was taken earlier in the same batch; another unique index still refuses.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DocStore } from './doc-store.js';
import { UniqueViolationError } from '../errors.js';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

async function open(): Promise<{ s: DocStore; file: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'hb-insert-new-'));
  dirs.push(dir);
  const file = join(dir, 'things.db');
  return { s: await DocStore.open({ filename: file }), file };
}
const docLines = (file: string) => readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l)).filter((d) => !d.$$indexCreated);

describe('DocStore.insertNew', () => {
  it('inserts a new id, and leaves a taken one as it is (undefined, nothing appended)', async () => {
    const { s, file } = await open();
    expect(await s.insertNew({ _id: 'a', n: 1 })).toEqual({ _id: 'a', n: 1 });
    expect(await s.insertNew({ _id: 'a', n: 2 })).toBeUndefined();
    expect(s.get('a')).toEqual({ _id: 'a', n: 1 });
    expect(s.size).toBe(1);
    expect(docLines(file)).toEqual([{ _id: 'a', n: 1 }]);
    await s.close();
  });

  it('sees an id taken earlier in the same batch', async () => {
    const { s, file } = await open();
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const held = s.holdWrites(() => gate);
    const first = s.insertNew({ _id: 'b', n: 1 });
    const second = s.insertNew({ _id: 'b', n: 2 });
    const other = s.insertNew({ _id: 'c', n: 3 });
    release();
    await held;
    expect(await Promise.all([first, second, other])).toEqual([{ _id: 'b', n: 1 }, undefined, { _id: 'c', n: 3 }]);
    expect(s.get('b')).toEqual({ _id: 'b', n: 1 });
    expect(docLines(file)).toEqual([{ _id: 'b', n: 1 }, { _id: 'c', n: 3 }]);
    await s.close();
  });

  it('rejects a value another unique index holds, as insert does', async () => {
    const { s } = await open();
    await s.ensureIndex({ fieldName: 'email', unique: true });
    await s.insertNew({ _id: 'd', email: 'x@example.com' });
    await expect(s.insertNew({ _id: 'e', email: 'x@example.com' })).rejects.toBeInstanceOf(UniqueViolationError);
    expect(s.get('e')).toBeUndefined();
    await s.close();
  });
});

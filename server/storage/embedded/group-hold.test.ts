// Read-modify-write sections of the embedded stores around the first write group of a process
// (group-hold.ts): sections admitted before any group are not marked, so the first group begins
// only once they have ended; from then on sections are marked, and one admitted before a group
// began goes on writing while the group holds the store (waiting for the group would deadlock:
// the group waits for the section's key). This file's module state is its own process's.
import { describe, expect, it } from 'vitest';
import { DocStore } from './doc-store.js';
import { embeddedStore } from './embedded-store.js';
import { inWriteGroup } from '../write-group.js';

const turns = async (n: number) => { for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r)); };

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => { open = resolve; });
  return { open, opened };
}

describe('sections and the first write group of the process', () => {
  it('the first group begins once the sections admitted before it have ended', async () => {
    const store = embeddedStore(await DocStore.open());
    const seen: string[] = [];
    const held = gate();
    const entered = gate();
    const section = store.exclusive('a', async () => {
      entered.open();
      await held.opened;
      await store.insert({ _id: 'a', by: 'section' });
      seen.push('section done');
    });
    await entered.opened;
    const group = inWriteGroup('ws', async () => {
      seen.push('group began');
      await store.insert({ _id: 'g', by: 'group' });
      return { commit: true, value: undefined };
    });
    await turns(20);
    expect(seen).toEqual([]);
    held.open();
    await Promise.all([section, group]);
    expect(seen).toEqual(['section done', 'group began']);
    expect((await store.find({ conditions: [], sort: [{ path: '_id', dir: 1 }], limit: 10, offset: 0 })).data.map((d) => d._id)).toEqual(['a', 'g']);
  });

  it('later, a section admitted before a group began writes while the group holds the store', { timeout: 10_000 }, async () => {
    const store = embeddedStore(await DocStore.open());
    await store.insert({ _id: 'x', n: 0 });
    const held = gate();
    const entered = gate();
    const groupHolds = gate();
    const section = store.exclusive('x', async () => {
      entered.open();
      await held.opened;
      // The group holds the store and waits for this section's key: this write must not wait.
      await store.insert({ _id: 'z', by: 'section' });
      return store.replace('x', { _id: 'x', n: 1 });
    });
    await entered.opened;
    const group = inWriteGroup('ws', async () => {
      await store.insert({ _id: 'y', by: 'group' });
      groupHolds.open();
      await store.update('x', (cur) => ({ ...cur, n: Number(cur.n) + 10 }));
      return { commit: true, value: undefined };
    });
    await groupHolds.opened;
    held.open();
    await Promise.all([section, group]);
    expect((await store.get('x'))?.n).toBe(11);
    expect((await store.get('z'))?.by).toBe('section');
    expect((await store.get('y'))?.by).toBe('group');
  });
});

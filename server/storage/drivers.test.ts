// Both storage drivers answer the one table of list and filter cases (query-cases.ts) alike, and
// random queries as the reference answers them; plus the store operations modules rely on
// (unique indexes, replaceAll, removeWhere, drop). PostgreSQL runs on a throwaway cluster.
import { beforeAll, describe, expect, it } from 'vitest';
import { DocStore } from './embedded/doc-store.js';
import { getEach, type Store } from './store.js';
import { embeddedStore } from './embedded/embedded-store.js';
import { parseListQuery, conditionsFromObject, parseSort } from '../core/list-query.js';
import { FIELDS, LIST_CASES, LOOSE_DOCS, TYPED_DOCS, TYPES, VIEW_CASES, makeDoc, prng, randomQuery, reference } from './query-cases.js';
import type { Doc } from './query.js';
import { pgBin } from '../test/pg-cluster.js';
import { usePgDatabase } from '../test/pg-suite.js';
import { UniqueViolationError, UnstorableValueError } from './errors.js';

const suite = usePgDatabase('drivers');
let n = 0;

type Open = () => Promise<Store>;
const drivers: Array<[string, Open, boolean]> = [
  ['embedded', async () => embeddedStore(await DocStore.open()), true],
  ['postgres', async () => suite.db.store('w', `s${++n}`), !!pgBin],
];

const queryOf = (q: string, typed?: boolean) => {
  const raw = Object.fromEntries(new URLSearchParams(q));
  const parsed = parseListQuery(raw, typed ? { typeOf: (p) => TYPES[p] } : {});
  return parsed.sort.length || /sort=/.test(q) || q === '' || q.startsWith('limit') || q.startsWith('offset') ? parsed : { ...parsed, sort: [{ path: '_id', dir: 1 as const }] };
};

for (const [name, open, available] of drivers) {
  describe.skipIf(!available)(`${name} driver`, () => {
    let loose: Store;
    let typed: Store;
    beforeAll(async () => {
      loose = await open();
      typed = await open();
      await loose.insertMany(LOOSE_DOCS.map((d) => structuredClone(d)));
      await typed.insertMany(TYPED_DOCS.map((d) => structuredClone(d)));
    });

    for (const c of LIST_CASES) {
      it(`list ${c.typed ? '(typed) ' : ''}${c.q || '(no parameters)'}`, async () => {
        const res = await (c.typed ? typed : loose).find(queryOf(c.q, c.typed));
        expect(res.data.map((d) => d._id)).toEqual(c.ids);
        expect(res.total).toBe(c.total ?? c.ids.length);
        if (c.data) expect(res.data).toEqual(c.data);
      });
    }

    it('views: stored object filters and sorts', async () => {
      for (const v of VIEW_CASES) {
        const res = await loose.find({ conditions: conditionsFromObject(v.filter), sort: parseSort(v.sort), limit: 50, offset: 0 });
        expect(res.data.map((d) => d._id), JSON.stringify(v)).toEqual(v.ids);
      }
    });

    it('random documents and queries answer as the reference does, before and after changes', async () => {
      const rand = prng(7);
      const docs = Array.from({ length: 400 }, (_, i) => makeDoc(rand, i, true));
      const s = await open();
      for (const f of FIELDS.slice(0, 3)) await s.ensureIndex({ fieldName: f });
      await s.insertMany(docs.map((d) => structuredClone(d)));
      const check = async (count: number) => {
        const all = await s.all();
        for (let i = 0; i < count; i++) {
          const q = randomQuery(rand);
          expect(await s.find(q), JSON.stringify(q)).toEqual(reference(all, q));
        }
      };
      await check(250);
      for (let i = 0; i < 100; i++) {
        const id = docs[Math.floor(rand() * docs.length)]._id;
        const current = await s.get(id);
        if (!current) continue;
        if (rand() < 0.3) await s.remove(id);
        else await s.replace(id, { ...makeDoc(rand, i, true), _id: id, createdAt: current.createdAt });
      }
      await check(150);
    });

    it('unique indexes refuse duplicates (409) and are refused over existing duplicates', async () => {
      const s = await open();
      await s.ensureIndex({ fieldName: 'email', unique: true });
      await s.insert({ _id: 'u1', email: 'a@x.io' });
      await s.insert({ _id: 'u2' });
      await s.insert({ _id: 'u3' }); // a missing field is not indexed
      await expect(s.insert({ _id: 'u4', email: 'a@x.io' })).rejects.toBeInstanceOf(UniqueViolationError);
      await expect(s.replace('u2', { _id: 'u2', email: 'a@x.io' })).rejects.toBeInstanceOf(UniqueViolationError);
      await expect(s.insert({ _id: 'u1', email: 'b@x.io' })).rejects.toBeInstanceOf(UniqueViolationError);
      expect((await s.find({ conditions: [], sort: [], limit: 10, offset: 0 })).total).toBe(3);
      await s.insert({ _id: 'u5', code: 'k' });
      await s.insert({ _id: 'u6', code: 'k' });
      await expect(s.ensureIndex({ fieldName: 'code', unique: true })).rejects.toBeInstanceOf(UniqueViolationError);
      expect((await s.listIndexes()).map((i) => i.fieldName).sort()).toEqual(['createdAt', 'email']);
      await s.removeIndex('email');
      await s.insert({ _id: 'u7', email: 'a@x.io' });
      expect((await s.findBy('email', 'a@x.io')).map((d) => d._id)).toEqual(['u1', 'u7']);
    });

    it('compound unique indexes hold on the pair', async () => {
      const s = await open();
      await s.ensureIndex({ fieldName: 'shop,sku', unique: true });
      await s.insert({ _id: 'a', shop: 1, sku: 'x' });
      await s.insert({ _id: 'b', shop: 2, sku: 'x' });
      await expect(s.insert({ _id: 'c', shop: 1, sku: 'x' })).rejects.toBeInstanceOf(UniqueViolationError);
      expect((await s.listIndexes()).find((i) => i.fieldName === 'shop,sku')?.unique).toBe(true);
    });

    it('a sort on an indexed field orders long strings past the indexed prefix, and stores them', async () => {
      const s = await open();
      await s.ensureIndex({ fieldName: 'bio' });
      // Longer than a btree entry may be, sharing more than the 200 characters a sort index holds,
      // beside numbers, a short string, an array and a missing value.
      const long = (tail: string) => `${'x'.repeat(300)}${tail}${'é€😀'.repeat(1500)}`;
      await s.insertMany([
        { _id: 'a', bio: long('b') }, { _id: 'b', bio: long('a') }, { _id: 'c', bio: 7 }, { _id: 'd', bio: 'x' },
        { _id: 'e', bio: [long('c')] }, { _id: 'f' }, { _id: 'g', bio: long('a') }, { _id: 'h', bio: 'y'.repeat(3000) },
      ]);
      const ids = async (sort: string, limit = 50) => (await s.find({ conditions: [], sort: parseSort(sort), limit, offset: 0 })).data.map((d) => d._id);
      expect(await ids('bio')).toEqual(['f', 'c', 'd', 'b', 'g', 'a', 'h', 'e']);
      expect(await ids('-bio')).toEqual(['e', 'h', 'a', 'b', 'g', 'd', 'c', 'f']);
      expect(await ids('-bio', 3)).toEqual(['e', 'h', 'a']);
      expect((await s.find({ conditions: [{ path: 'bio', op: '$eq', values: [long('a')] }], sort: parseSort('-bio'), limit: 5, offset: 0 })).total).toBe(2);
    });

    it('replaceAll swaps everything, or nothing when it breaks a unique index', async () => {
      const s = await open();
      await s.ensureIndex({ fieldName: 'k', unique: true });
      await s.insertMany([{ _id: 'a', k: 1 }, { _id: 'b', k: 2 }]);
      await expect(s.replaceAll([{ _id: 'x', k: 5 }, { _id: 'y', k: 5 }])).rejects.toBeInstanceOf(UniqueViolationError);
      expect((await s.all()).map((d) => d._id)).toEqual(['a', 'b']);
      await s.replaceAll([{ _id: 'z', k: 9 }]);
      expect(await s.all()).toEqual([{ _id: 'z', k: 9 }]);
      expect(await s.count()).toBe(1);
    });

    it('removeWhere, field-name rules and drop', async () => {
      const s = await open();
      await s.insertMany([{ _id: 'a', c: 'x' }, { _id: 'b', c: 'y' }, { _id: 'c', c: 'x' }]);
      expect(await s.removeWhere([{ path: 'c', op: '$eq', values: ['x'] }])).toBe(2);
      expect((await s.all()).map((d) => d._id)).toEqual(['b']);
      await expect(s.insert({ _id: 'd', nested: { 'a.b': 1 } } as Doc)).rejects.toBeInstanceOf(UnstorableValueError);
      await expect(s.insert({ _id: 'e', $x: 1 } as Doc)).rejects.toBeInstanceOf(UnstorableValueError);
      expect(await s.get('d')).toBeUndefined();
      await s.drop();
    });

    it('getEach reads one document of each store, in order (one round trip on PostgreSQL)', async () => {
      const [s1, s2] = [await open(), await open()];
      await s1.insert({ _id: 'x', v: 1 });
      await s2.insert({ _id: 'x', v: 2 });
      await s2.insert({ _id: 'y', v: 3 });
      expect(await getEach([[s1, 'x'], [s2, 'y'], [s2, 'x'], [s1, 'missing']])).toEqual([{ _id: 'x', v: 1 }, { _id: 'y', v: 3 }, { _id: 'x', v: 2 }, undefined]);
      expect(await getEach([[s2, 'x']])).toEqual([{ _id: 'x', v: 2 }]);
      expect(await getEach([])).toEqual([]);
      await s1.drop();
      await s2.drop();
    });
  });
}

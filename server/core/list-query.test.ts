// Unit tests of the one list-query parser: limits, sort, fields, filters, coercion, errors.
import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.js';
import { conditionsFromObject, listMeta, parseListQuery, parseSort, validateObjectFilter } from './list-query.js';
import type { FieldType } from '../shared/models.js';

const badRequest = (fn: () => unknown) => {
  try { fn(); } catch (err) { expect(err).toBeInstanceOf(ApiError); return (err as ApiError).code; }
  throw new Error('expected a throw');
};

describe('parseListQuery', () => {
  it('has the contract defaults', () => {
    expect(parseListQuery({})).toEqual({ conditions: [], sort: [], limit: 50, offset: 0, fields: undefined });
    expect(parseListQuery({}, { defaultSort: [{ path: 'createdAt', dir: -1 }] }).sort).toEqual([{ path: 'createdAt', dir: -1 }]);
  });

  it('reads limit and offset, clamps limit to 100, accepts 0', () => {
    expect(parseListQuery({ limit: '10', offset: '20' })).toMatchObject({ limit: 10, offset: 20 });
    expect(parseListQuery({ limit: '1000' }).limit).toBe(100);
    expect(parseListQuery({ limit: '0' }).limit).toBe(0);
    for (const limit of ['-1', 'x', '1.5', '', ' 3', '1e3']) expect(badRequest(() => parseListQuery({ limit })), limit).toBe('BAD_REQUEST');
    expect(badRequest(() => parseListQuery({ offset: '-2' }))).toBe('BAD_REQUEST');
    expect(badRequest(() => parseListQuery({ limit: ['1', '2'] }))).toBe('BAD_REQUEST');
  });

  it('reads multi-field sort and fields', () => {
    expect(parseListQuery({ sort: '-age,name,+city.zip' }).sort).toEqual([{ path: 'age', dir: -1 }, { path: 'name', dir: 1 }, { path: 'city.zip', dir: 1 }]);
    expect(parseListQuery({ fields: 'name, age' }).fields).toEqual(['name', 'age']);
    for (const sort of ['a,,b', '$where', 'a b', '-']) expect(badRequest(() => parseListQuery({ sort })), sort).toBe('BAD_REQUEST');
    expect(badRequest(() => parseListQuery({ fields: 'a,__proto__.x,$y' }))).toBe('BAD_REQUEST');
  });

  it('reads equality and every operator of the contract', () => {
    const q = parseListQuery({
      'filter[role]': 'admin', 'filter[age][$gte]': '25', 'filter[age][$lt]': '40', 'filter[n][$ne]': 'x', 'filter[t][$in]': 'a,b',
      'filter[t][$nin]': 'c', 'filter[e][$exists]': 'false', 'filter[s][$contains]': 'ab', 'filter[s][$startsWith]': 'x', 'filter[g][$gt]': '1',
      'filter[h][$lte]': '2', 'filter[i][$eq]': 'v',
    });
    expect(q.conditions.map((c) => `${c.path}:${c.op}`)).toEqual([
      'role:$eq', 'age:$gte', 'age:$lt', 'n:$ne', 't:$in', 't:$nin', 'e:$exists', 's:$contains', 's:$startsWith', 'g:$gt', 'h:$lte', 'i:$eq',
    ]);
    expect(q.conditions.find((c) => c.op === '$exists')!.values).toEqual([false]);
    expect(q.conditions.find((c) => c.op === '$in')!.values).toEqual(['a', 'b']);
  });

  it('refuses unknown operators and malformed filter keys with 400, never passing them on', () => {
    for (const key of ['filter[a][$regex]', 'filter[a][$where]', 'filter[a][gte]', 'filter[a][$gt][b]', 'filter[]', 'filter', 'filterx', 'filter[a b]', 'filter[$a]']) {
      expect(badRequest(() => parseListQuery({ [key]: '1' })), key).toBe('BAD_REQUEST');
    }
  });

  it('coerces values without a schema to both readings', () => {
    const values = (v: string) => parseListQuery({ 'filter[x]': v }).conditions[0].values;
    expect(values('25')).toEqual([25, '25']);
    expect(values('true')).toEqual([true, 'true']);
    expect(values('null')).toEqual([null, 'null']);
    expect(values('abc')).toEqual(['abc']);
    expect(parseListQuery({ 'filter[x][$in]': '1,a' }).conditions[0].values).toEqual([1, '1', 'a']);
  });

  it('coerces values by the schema type', () => {
    const types: Record<string, FieldType> = { n: 'number', i: 'integer', b: 'boolean', s: 'string', d: 'date', j: 'json' };
    const typeOf = (p: string) => types[p];
    const values = (path: string, v: string) => parseListQuery({ [`filter[${path}]`]: v }, { typeOf }).conditions[0].values;
    expect(values('n', '25')).toEqual([25]);
    expect(values('i', '-3')).toEqual([-3]);
    expect(values('b', 'true')).toEqual([true]);
    expect(values('b', '0')).toEqual([false]);
    expect(values('s', '25')).toEqual(['25']);
    expect(values('d', '2024-01-01')).toEqual(['2024-01-01']);
    expect(values('j', '1')).toEqual([1, '1']);
    expect(values('n', 'null')).toEqual([null]);
    expect(badRequest(() => values('n', 'abc'))).toBe('BAD_REQUEST');
    expect(badRequest(() => values('n', ''))).toBe('BAD_REQUEST');
    expect(badRequest(() => values('b', 'yes'))).toBe('BAD_REQUEST');
  });

  it('reads a range with a numeric-looking value as a number only; equality keeps both readings', () => {
    const cond = (key: string, v: string, typeOf?: (p: string) => FieldType | undefined) => parseListQuery({ [key]: v }, { typeOf }).conditions[0];
    for (const op of ['$gt', '$gte', '$lt', '$lte']) {
      expect(cond(`filter[age][${op}]`, '100')).toEqual({ path: 'age', op, values: [100] });
      expect(cond(`filter[age][${op}]`, '-2.5')).toEqual({ path: 'age', op, values: [-2.5] });
    }
    expect(cond('filter[age][$gte]', 'abc').values).toEqual(['abc']);
    expect(cond('filter[age]', '100').values).toEqual([100, '100']);
    expect(cond('filter[age][$in]', '100').values).toEqual([100, '100']);
    // A typed string field compares as text, a number field as a number.
    expect(cond('filter[code][$gte]', '100', () => 'string').values).toEqual(['100']);
    expect(cond('filter[n][$gte]', '100', () => 'number').values).toEqual([100]);
    // Views: typed JSON values are kept, strings read the same way.
    expect(conditionsFromObject({ age: { $gte: 100, $lt: '200' } })).toEqual([
      { path: 'age', op: '$gte', values: [100] }, { path: 'age', op: '$lt', values: [200] },
    ]);
  });

  it('reads a range with an ISO date value as an instant on date and untyped fields', () => {
    const cond = (v: string, type?: FieldType) => parseListQuery({ 'filter[at][$gte]': v }, { typeOf: () => type }).conditions[0];
    expect(cond('2024-03-01T12:00:00+02:00')).toEqual({ path: 'at', op: '$gte', values: [Date.UTC(2024, 2, 1, 10)], kind: 'date' });
    expect(cond('2024-03-01', 'date')).toEqual({ path: 'at', op: '$gte', values: [Date.UTC(2024, 2, 1)], kind: 'date' });
    expect(cond('2024-03-01', 'string')).toEqual({ path: 'at', op: '$gte', values: ['2024-03-01'] });
    // Not a date (or not one that exists): compared as text, as before.
    expect(cond('2024-03', 'date').values).toEqual(['2024-03']);
    expect(cond('2024-02-30', 'date').values).toEqual(['2024-02-30']);
    expect(parseListQuery({ 'filter[at]': '2024-03-01' }).conditions[0].values).toEqual(['2024-03-01']);
  });

  it('refuses field paths named like Object.prototype members, as field definitions do', () => {
    for (const p of ['constructor', 'toString', 'a.valueOf', 'hasOwnProperty', '__proto__', 'prototype']) {
      expect(badRequest(() => parseListQuery({ sort: p })), p).toBe('BAD_REQUEST');
      expect(badRequest(() => parseListQuery({ [`filter[${p}]`]: '1' })), p).toBe('BAD_REQUEST');
    }
  });

  it('reads dot paths', () => {
    expect(parseListQuery({ 'filter[profile.city]': 'Oslo' }).conditions[0]).toEqual({ path: 'profile.city', op: '$eq', values: ['Oslo'] });
  });
});

describe('object filters (views)', () => {
  it('turns an object filter into conditions, keeping typed JSON values', () => {
    expect(conditionsFromObject({ role: 'admin', age: { $gte: 25, $lt: 60 }, meta: { a: 1 } })).toEqual([
      { path: 'role', op: '$eq', values: ['admin'] },
      { path: 'age', op: '$gte', values: [25] },
      { path: 'age', op: '$lt', values: [60] },
      { path: 'meta', op: '$eq', values: [{ a: 1 }] },
    ]);
    expect(conditionsFromObject({ tags: { $in: ['a', 'b'] } })[0].values).toEqual(['a', 'b']);
  });

  it('validates object filters', () => {
    expect(() => validateObjectFilter({ age: { $gte: 1 } })).not.toThrow();
    expect(badRequest(() => validateObjectFilter({ age: { $regex: 'x' } }))).toBe('BAD_REQUEST');
    expect(badRequest(() => validateObjectFilter(['x']))).toBe('VALIDATION_ERROR');
    expect(badRequest(() => validateObjectFilter('x'))).toBe('VALIDATION_ERROR');
  });
});

describe('helpers', () => {
  it('parseSort and listMeta', () => {
    expect(parseSort('-a')).toEqual([{ path: 'a', dir: -1 }]);
    expect(listMeta(7, { limit: 5, offset: 5 })).toEqual({ total: 7, limit: 5, offset: 5 });
  });
});

import { describe, expect, it } from 'vitest';
import {
  FilterSyntaxError, conditionsFromViewFilter, conditionsToParams, conditionsToText, conditionsToViewFilter, parseFilter,
} from './filter';

describe('parseFilter: typed text', () => {
  it.each([
    ['age >= 30 and role = admin', [{ field: 'age', op: '$gte', value: '30' }, { field: 'role', op: '$eq', value: 'admin' }]],
    ['age>=30 && role==admin', [{ field: 'age', op: '$gte', value: '30' }, { field: 'role', op: '$eq', value: 'admin' }]],
    ['name = "Ann and Bob"', [{ field: 'name', op: '$eq', value: 'Ann and Bob' }]],
    ["name != 'x'", [{ field: 'name', op: '$ne', value: 'x' }]],
    ['role in (admin, "editor")', [{ field: 'role', op: '$in', value: 'admin,editor' }]],
    ['role not in [a,b]', [{ field: 'role', op: '$nin', value: 'a,b' }]],
    ['address.city startsWith Par', [{ field: 'address.city', op: '$startsWith', value: 'Par' }]],
    ['name starts with "Jo"', [{ field: 'name', op: '$startsWith', value: 'Jo' }]],
    ['tags contains red', [{ field: 'tags', op: '$contains', value: 'red' }]],
    ['email exists', [{ field: 'email', op: '$exists', value: 'true' }]],
    ['email not exists', [{ field: 'email', op: '$exists', value: 'false' }]],
    ['age $lt 5', [{ field: 'age', op: '$lt', value: '5' }]],
    ['AGE < 5 AND x > 1', [{ field: 'AGE', op: '$lt', value: '5' }, { field: 'x', op: '$gt', value: '1' }]],
    ['', []],
  ])('%s', (text, expected) => {
    expect(parseFilter(text).conditions).toEqual(expected);
  });

  it.each([
    ['age >= 30 or role = admin', /Only 'and'/],
    ['age', /needs an operator/],
    ['age ~ 3', /Unknown operator/],
    ['age $regex 3', /Unknown operator '\$regex'/],
    ['age >=', /needs a value/],
    ['name = "open', /quote is not closed/],
    ['1abc = 2', /field name/],
    ['x exists maybe', /true or false/],
  ])('refuses %s', (text, message) => {
    expect(() => parseFilter(text)).toThrow(FilterSyntaxError);
    expect(() => parseFilter(text)).toThrow(message);
  });
});

describe('parseFilter: query-string form', () => {
  it('reads filter keys and sort, ignores paging', () => {
    expect(parseFilter('?filter[age][$gte]=30&filter[role]=admin&sort=-age&limit=10')).toEqual({
      conditions: [{ field: 'age', op: '$gte', value: '30' }, { field: 'role', op: '$eq', value: 'admin' }],
      sort: '-age',
    });
  });
  it('refuses an unknown operator', () => {
    expect(() => parseFilter('filter[age][$foo]=1')).toThrow(/Unknown operator/);
  });
});

describe('round trips', () => {
  const conditions = [
    { field: 'age', op: '$gte', value: '30' },
    { field: 'name', op: '$eq', value: 'Ann Lee' },
    { field: 'role', op: '$in', value: 'a,b c' },
    { field: 'email', op: '$exists', value: 'false' },
  ] as const;
  it('text', () => {
    const text = conditionsToText([...conditions]);
    expect(text).toBe('age >= 30 and name = "Ann Lee" and role in (a, "b c") and email not exists');
    expect(parseFilter(text).conditions).toEqual(conditions);
  });
  it('params', () => {
    expect(conditionsToParams([...conditions])).toEqual([
      ['filter[age][$gte]', '30'], ['filter[name]', 'Ann Lee'], ['filter[role][$in]', 'a,b c'], ['filter[email][$exists]', 'false'],
    ]);
  });
  it('view filter', () => {
    const filter = conditionsToViewFilter([...conditions]);
    expect(filter).toEqual({ age: { $gte: '30' }, name: { $eq: 'Ann Lee' }, role: { $in: ['a', 'b c'] }, email: { $exists: false } });
    expect(conditionsFromViewFilter(filter)).toEqual(conditions);
    expect(conditionsFromViewFilter({ role: 'admin', n: 3 })).toEqual([{ field: 'role', op: '$eq', value: 'admin' }, { field: 'n', op: '$eq', value: '3' }]);
  });
  it('refuses the same field and operator twice', () => {
    expect(() => conditionsToParams([{ field: 'a', op: '$eq', value: '1' }, { field: 'a', op: '$eq', value: '2' }])).toThrow(/two conditions/);
  });
});

// The lines of docToJson are those of the embedded stores' files (nedb's serialize), both ways.
import model from '@seald-io/nedb/lib/model.js';
import { describe, expect, it } from 'vitest';
import { docFromJson, docToJson } from './doc-json.js';

const nedb = model as unknown as { serialize(o: unknown): string; deserialize(s: string): unknown };

const samples: unknown[] = [
  { _id: 'a1', title: 'plain', n: 3, ok: true, none: null, tags: ['x', 'y'], nested: { deep: { v: 1 } } },
  { _id: 'a2', at: new Date(Date.UTC(2024, 1, 29, 12, 0, 0)), list: [new Date(0), { when: new Date(1_700_000_000_000) }] },
  { _id: 'a3', skipped: undefined, empty: {}, text: 'line\nbreak "quoted" é' },
  { settings: { name: 'demo', createdAt: '2024-01-01T00:00:00.000Z', collections: [] } },
];

describe('doc-json', () => {
  it('writes what the embedded stores write', () => {
    for (const s of samples) expect(docToJson(s)).toBe(nedb.serialize(s));
  });

  it('reads back dates as dates, and reads the embedded stores\' lines as they do', () => {
    for (const s of samples) {
      const line = nedb.serialize(s);
      expect(docFromJson(line)).toEqual(nedb.deserialize(line));
      expect(docFromJson(docToJson(s))).toEqual(nedb.deserialize(line));
    }
    const back = docFromJson(docToJson(samples[1])) as { at: Date; list: [Date, { when: Date }] };
    expect(back.at).toBeInstanceOf(Date);
    expect(back.at.getTime()).toBe(Date.UTC(2024, 1, 29, 12, 0, 0));
    expect(back.list[1].when.getTime()).toBe(1_700_000_000_000);
  });

  it('leaves an object that only looks like a date alone', () => {
    expect(docFromJson('{"d":{"$$date":"soon"},"e":{"$$date":1,"x":2}}')).toEqual({ d: { $$date: 'soon' }, e: { $$date: 1, x: 2 } });
  });
});

// The JSON text cache of stored documents (core/http.ts: storedDocJson): the text is
// JSON.stringify's, it is reused while the document is among the recently sent, and the cache
// holds at most two generations of DOC_TEXT_GENERATION documents however many are sent.
// (The cache is observed by changing a document after its text was kept, which stored documents
// never are: a kept text is then the old one.)
import { describe, expect, it } from 'vitest';
import { DOC_TEXT_GENERATION, storedDocJson } from './http.js';

const others = (n: number, tag: string) => { for (let i = 0; i < n; i++) storedDocJson({ _id: `${tag}${i}`, n: i }); };

describe('storedDocJson', () => {
  it('answers JSON.stringify of the document', () => {
    const doc = { _id: 'a', name: 'Ann "the" first', nested: { list: [1, null, 'x'] } };
    expect(storedDocJson(doc)).toBe(JSON.stringify(doc));
  });

  it('keeps a text while the document is among the recently sent, then lets it go', () => {
    const doc: Record<string, unknown> = { _id: 'kept', v: 1 };
    const first = storedDocJson(doc);
    doc.v = 2;
    others(DOC_TEXT_GENERATION - 10, 'a');
    expect(storedDocJson(doc)).toBe(first); // still kept
    others(2 * DOC_TEXT_GENERATION + 10, 'c');
    expect(storedDocJson(doc)).toBe(JSON.stringify({ _id: 'kept', v: 2 })); // dropped: made again
  });

  it('a document sent again and again stays kept however many others are sent', () => {
    const doc: Record<string, unknown> = { _id: 'hot', v: 1 };
    const first = storedDocJson(doc);
    doc.v = 2;
    for (let round = 0; round < 6; round++) {
      others(DOC_TEXT_GENERATION / 2, `r${round}-`);
      expect(storedDocJson(doc)).toBe(first);
    }
  });
});

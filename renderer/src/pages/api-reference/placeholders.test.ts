import { describe, expect, it } from 'vitest';
import { dropPlaceholderBody, dropPlaceholderParams, dropPlaceholders } from './placeholders';

describe("Swagger UI's Try it out placeholders", () => {
  it('drops filter parameters naming additionalPropN, keeps the others', () => {
    expect(dropPlaceholderParams('http://h/api/app/a/database/b?filter%5BadditionalProp1%5D%5B%24eq%5D=x&limit=10'))
      .toBe('http://h/api/app/a/database/b?limit=10');
    expect(dropPlaceholderParams('http://h/x?filter[additionalProp1]=&filter[additionalProp2]=')).toBe('http://h/x');
    expect(dropPlaceholderParams('http://h/x?filter[title]=a')).toBe('http://h/x?filter%5Btitle%5D=a');
    expect(dropPlaceholderParams('http://h/x')).toBe('http://h/x');
  });

  it("drops additionalPropN keys and a placeholder _owner from JSON bodies", () => {
    const body = JSON.stringify({ _owner: 'string', title: 'string', additionalProp1: {}, nested: { additionalProp2: 1, keep: true } });
    expect(JSON.parse(dropPlaceholderBody(body) as string)).toEqual({ title: 'string', nested: { keep: true } });
    expect(dropPlaceholderBody('{"_owner":"u1"}')).toBe('{"_owner":"u1"}');
    expect(dropPlaceholderBody('not json additionalProp1')).toBe('not json additionalProp1');
    expect(dropPlaceholders({ url: 'http://h/x?additionalProp1=1', body: undefined })).toEqual({ url: 'http://h/x', body: undefined });
  });
});

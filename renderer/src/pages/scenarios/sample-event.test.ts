import { describe, expect, it } from 'vitest';
import { dataKeysRead, sampleEvent, sampleEventType } from './sample-event';

describe('sample event for Run now', () => {
  it('takes the first event kind, a group as its created kind', () => {
    expect(sampleEventType(['record.*'])).toBe('record.created');
    expect(sampleEventType(['file.*'])).toBe('file.uploaded');
    expect(sampleEventType(['user.deleted', 'user.created'])).toBe('user.deleted');
    expect(sampleEventType(['*'])).toBe('record.created');
  });

  it('fills the data the steps read, then a real record over it', () => {
    const draft = {
      name: 'n', description: '', trigger: { type: 'event', events: ['record.created'], filter: { collection: 'books' } },
      steps: [{ type: 'http', url: 'http://x', body: { text: 'New book: {{event.data.title}} by {{ event.data.author }}', id: '{{event.data._id}}' } }],
    };
    expect(dataKeysRead(draft.steps)).toEqual(['title', 'author', '_id']);
    expect(sampleEvent(draft)).toEqual({ type: 'record.created', collection: 'books', data: { _id: 'sample-id', title: 'sample title', author: 'sample author' } });
    expect(sampleEvent(draft, { _id: 'b1', title: 'Dune', author: 'Herbert', year: 1965 }).data).toEqual({ _id: 'b1', title: 'Dune', author: 'Herbert', year: 1965 });
  });
});

// The sample event "Run now" offers for an event-triggered scenario, prefilled from its trigger:
// the first event kind it listens to (a group pattern as its `created` kind), the trigger's
// collection, and `data` with every `{{event.data.KEY}}` the steps read (a sample value each),
// overlaid with a real record when one is at hand (the newest of the trigger's collection).
import type { Draft } from './model';

export interface SampleEvent { type: string; collection?: string; data: Record<string, unknown> }

const GROUP_KINDS: Record<string, string> = { record: 'record.created', user: 'user.created', file: 'file.uploaded', message: 'message.created', channel: 'channel.created' };

export function sampleEventType(events: unknown): string {
  const first = Array.isArray(events) && typeof events[0] === 'string' ? events[0] : '*';
  if (first === '*') return 'record.created';
  const group = /^([a-z]+)\.\*$/.exec(first);
  return group ? (GROUP_KINDS[group[1]] ?? `${group[1]}.created`) : first;
}

/** The keys of `event.data` the steps' templates read (`{{event.data.title}}` → `title`). */
export function dataKeysRead(steps: unknown): string[] {
  const keys = new Set<string>();
  for (const m of JSON.stringify(steps ?? []).matchAll(/\{\{\s*event\.data\.([A-Za-z0-9_$-]+)/g)) keys.add(m[1]);
  return [...keys];
}

export function sampleEvent(draft: Draft, record?: Record<string, unknown>): SampleEvent {
  const t = draft.trigger as { events?: unknown; filter?: { collection?: unknown } };
  const type = sampleEventType(t.events);
  const collection = typeof t.filter?.collection === 'string' && t.filter.collection ? t.filter.collection : undefined;
  const data: Record<string, unknown> = { _id: 'sample-id' };
  for (const k of dataKeysRead(draft.steps)) if (!(k in data)) data[k] = `sample ${k}`;
  Object.assign(data, record ?? {});
  return { type, ...(collection && type.startsWith('record.') ? { collection } : {}), data };
}

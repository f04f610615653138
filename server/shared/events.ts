// Event kinds published on the bus. Browser-safe.
export const EVENT_TYPES = [
  'record.created', 'record.updated', 'record.deleted',
  'user.created', 'user.updated', 'user.deleted',
  'file.uploaded', 'file.deleted',
  'message.created', 'message.updated', 'message.deleted',
  'channel.created', 'channel.updated', 'channel.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number] | 'webhook.test';

/** Does a webhook/scenario pattern (`*`, `record.*`, `user.created`) match an event kind? */
export function eventMatches(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return type.startsWith(pattern.slice(0, -1));
  return pattern === type;
}

import { describe, expect, it } from 'vitest';
import { failureDialog } from './failures.js';
import type { FailureKind } from './server-protocol.js';

describe('failure dialogs', () => {
  it.each<[FailureKind, RegExp, string[]]>([
    ['folder-locked', /Stop the other Homebase/, ['retry', 'choose-folder', 'default-folder', 'quit']],
    ['disk-full', /Free some space/, ['retry', 'choose-folder', 'open-logs', 'quit']],
    ['no-access', /write access/, ['choose-folder', 'retry', 'default-folder', 'quit']],
    ['port', /Close programs holding local ports/, ['retry', 'open-logs', 'quit']],
    ['crash', /Restart it/, ['retry', 'open-logs', 'quit']],
    ['other', /logs folder/, ['retry', 'choose-folder', 'open-logs', 'quit']],
  ])('%s says what to do and offers it', (kind, what, actions) => {
    const d = failureDialog({ kind, message: 'boom', path: '/somewhere' }, '/default');
    expect(d.detail).toMatch(what);
    expect(d.buttons.map((b) => b.action)).toEqual(actions);
    expect(d.buttons.at(-1)!.action).toBe('quit');
  });

  it('no "use the default folder" when the failing folder is the default', () => {
    const d = failureDialog({ kind: 'folder-locked', message: 'x', path: '/default' }, '/default');
    expect(d.buttons.map((b) => b.action)).not.toContain('default-folder');
  });
});

import { describe, expect, it, vi, beforeEach } from 'vitest';
vi.mock('electron', () => import('./test/electron-stub.js'));
import { ipcMain, invoke, resetStub, stub } from './test/electron-stub.js';
import { ALLOWED_INVOKE_CHANNELS, INVOKE_CHANNELS } from './channels.js';
import { ipcHandlers, registerIpc } from './ipc.js';

const ORIGIN = 'http://127.0.0.1:4700';
const consoleContents = { id: 1 };
const ctx = { consoleContents: () => consoleContents as never, consoleOrigin: () => ORIGIN, consoleToken: () => 'console-token-1' };
const event = (over: Record<string, unknown> = {}) => ({ sender: consoleContents, senderFrame: { url: `${ORIGIN}/app/demo`, parent: null }, ...over });

describe('IPC', () => {
  beforeEach(() => resetStub());

  it('the allow-list is one invoke channel, and every allowed channel has exactly one handler', () => {
    expect(ALLOWED_INVOKE_CHANNELS).toEqual(['homebase:get-console-token']);
    expect(Object.keys(ipcHandlers(ctx)).sort()).toEqual([...ALLOWED_INVOKE_CHANNELS].sort());
    const logged: string[] = [];
    const remove = registerIpc(ipcMain as never, ctx, (l) => logged.push(l));
    expect([...stub.ipcHandlers.keys()]).toEqual([...ALLOWED_INVOKE_CHANNELS]);
    remove();
    expect(stub.ipcHandlers.size).toBe(0);
  });

  it('gives the token to the console window top frame on the server origin', async () => {
    registerIpc(ipcMain as never, ctx, () => {});
    await expect(invoke(INVOKE_CHANNELS.getConsoleToken, event())).resolves.toBe('console-token-1');
  });

  it.each([
    ['another web contents', { sender: { id: 2 } }],
    ['a page of another origin', { senderFrame: { url: 'https://evil.example/', parent: null } }],
    ['another local port', { senderFrame: { url: 'http://127.0.0.1:4701/', parent: null } }],
    ['a frame inside the console', { senderFrame: { url: `${ORIGIN}/x`, parent: { url: `${ORIGIN}/` } } }],
    ['a frame that is gone', { senderFrame: null }],
    ['a file: page', { senderFrame: { url: 'file:///tmp/x.html', parent: null } }],
  ])('refuses %s', async (_name, over) => {
    const logged: string[] = [];
    registerIpc(ipcMain as never, ctx, (l) => logged.push(l));
    await expect(invoke(INVOKE_CHANNELS.getConsoleToken, event(over))).rejects.toThrow(/Refused/);
    expect(logged.join('\n')).toMatch(/refused IPC homebase:get-console-token/);
    expect(logged.join('\n')).not.toContain('console-token-1');
  });

  it('refuses while no server runs (no origin, no token)', async () => {
    registerIpc(ipcMain as never, { ...ctx, consoleOrigin: () => undefined }, () => {});
    await expect(invoke(INVOKE_CHANNELS.getConsoleToken, event())).rejects.toThrow(/Refused/);
    stub.ipcHandlers.clear();
    registerIpc(ipcMain as never, { ...ctx, consoleToken: () => undefined }, () => {});
    await expect(invoke(INVOKE_CHANNELS.getConsoleToken, event())).rejects.toThrow(/not running/);
  });

  it('a channel outside the allow-list has no handler', async () => {
    registerIpc(ipcMain as never, ctx, () => {});
    await expect(invoke('homebase:open-data-folder', event())).rejects.toThrow(/No handler/);
  });
});

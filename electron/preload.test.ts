import { describe, expect, it, vi, beforeAll } from 'vitest';
import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
vi.mock('electron', () => import('./test/electron-stub.js'));
import { resetStub, stub } from './test/electron-stub.js';
import { INVOKE_CHANNELS } from './channels.js';

describe('preload', () => {
  beforeAll(() => resetStub());

  it('exposes exactly window.homebase.getConsoleToken(), an async call on the one invoke channel', async () => {
    stub.invokeResult = 'console-token-1';
    await import('./preload.js');
    expect(Object.keys(stub.exposed)).toEqual(['homebase']);
    const api = stub.exposed.homebase as Record<string, unknown>;
    expect(Object.keys(api)).toEqual(['getConsoleToken']);
    const pending = (api.getConsoleToken as (...a: unknown[]) => Promise<string>)('ignored', { leak: true });
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).resolves.toBe('console-token-1');
    expect(stub.invokes).toEqual([{ channel: INVOKE_CHANNELS.getConsoleToken, args: [] }]);
  });

  it('the built preload is one CommonJS file that needs nothing but electron (a sandboxed preload can require nothing else)', async () => {
    const out = await build({ entryPoints: [new URL('./preload.ts', import.meta.url).pathname], bundle: true, platform: 'node', format: 'cjs',
      external: ['electron'], target: 'node20', write: false, logLevel: 'silent' });
    const code = out.outputFiles[0].text;
    const required: string[] = [];
    const exposed: Record<string, any> = {};
    const invokes: string[] = [];
    const electron = {
      contextBridge: { exposeInMainWorld: (k: string, v: unknown) => { exposed[k] = v; } },
      ipcRenderer: { invoke: (c: string) => { invokes.push(c); return Promise.resolve('t'); } },
    };
    const module = { exports: {} };
    runInNewContext(code, { module, exports: module.exports, require: (id: string) => { required.push(id); if (id !== 'electron') throw new Error(`cannot require ${id}`); return electron; } });
    expect(required).toEqual(['electron']);
    expect(Object.keys(exposed.homebase)).toEqual(['getConsoleToken']);
    await expect(exposed.homebase.getConsoleToken()).resolves.toBe('t');
    expect(invokes).toEqual(['homebase:get-console-token']);
  });
});

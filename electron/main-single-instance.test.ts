// A second launch of the app: it does not get the single-instance lock, so it ends at once,
// starting no server and opening no window (the first instance shows its window instead).
import { describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
vi.mock('electron', () => import('./test/electron-stub.js'));
import { app, resetStub, stub } from './test/electron-stub.js';

describe('single instance', () => {
  it('a second launch quits without starting a server', async () => {
    resetStub();
    const dir = mkdtempSync(join(tmpdir(), 'hb-second-'));
    try {
      stub.paths.appData = dir;
      stub.singleInstance = false;
      await import('./main.js');
      app.becomeReady();
      await vi.waitFor(() => expect(stub.quitCalls).toBe(1));
      expect(stub.forks).toHaveLength(0);
      expect(stub.windows).toHaveLength(0);
      expect(app.listenerCount('second-instance')).toBe(0);
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });
});

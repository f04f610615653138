// File permissions of a data folder: the console token (homebase.json) and everything under the
// data folder are for the server's own user only, also for folders made by an older version.
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestServer, tempDataDir } from '../test/harness.js';

const mode = (path: string) => statSync(path).mode & 0o777;
const posix = process.platform !== 'win32' && typeof process.getuid === 'function';

describe.skipIf(!posix)('data folder permissions', () => {
  it('writes homebase.json 0600 and makes the data and workspace folders 0700, after every registry write', async () => {
    const data = tempDataDir();
    const dir = join(data.dir, 'folder'); // made by the server, not by mkdtemp (which is 0700 already)
    try {
      const t = await startTestServer({ data: dir });
      expect(mode(dir)).toBe(0o700);
      expect(mode(join(dir, 'workspaces'))).toBe(0o700);
      expect(mode(join(dir, 'homebase.json'))).toBe(0o600);
      expect(mode(join(dir, 'workspaces', 'demo'))).toBe(0o700);
      expect(mode(join(dir, 'workspaces', 'demo', 'keys.json'))).toBe(0o600);
      // A registry write replaces homebase.json with a new file: it stays 0600.
      expect((await t.consoleReq('POST', '/workspaces', { _id: 'shop' })).status).toBe(201);
      expect(mode(join(dir, 'homebase.json'))).toBe(0o600);
      expect(mode(join(dir, 'workspaces', 'shop'))).toBe(0o700);
      expect(mode(join(dir, 'workspaces', 'shop', 'stores'))).toBe(0o700);
      expect((await t.consoleReq('DELETE', '/workspaces/shop')).status).toBe(204);
      expect(mode(join(dir, 'homebase.json'))).toBe(0o600);
      await t.close();
    } finally {
      data.remove();
    }
  });

  it('takes group and other access away from an existing data folder at start', async () => {
    const data = tempDataDir();
    const dir = join(data.dir, 'old');
    try {
      let t = await startTestServer({ data: dir });
      const token = t.consoleToken;
      await t.close();
      // As an older version left it (0644 / 0755).
      chmodSync(join(dir, 'homebase.json'), 0o644);
      for (const d of [dir, join(dir, 'workspaces'), join(dir, 'workspaces', 'demo')]) chmodSync(d, 0o755);

      t = await startTestServer({ data: dir });
      expect(t.consoleToken).toBe(token); // existing files keep working
      expect((await t.req('GET', '/database')).status).toBe(200);
      expect(mode(join(dir, 'homebase.json'))).toBe(0o600);
      for (const d of [dir, join(dir, 'workspaces'), join(dir, 'workspaces', 'demo')]) expect(mode(d), d).toBe(0o700);
      await t.close();
    } finally {
      data.remove();
    }
  });

  it('creates a data folder given by the caller 0700 even under a permissive umask', async () => {
    const data = tempDataDir();
    const dir = join(data.dir, 'made-by-caller');
    try {
      mkdirSync(dir, { mode: 0o777 });
      chmodSync(dir, 0o777);
      writeFileSync(join(dir, 'notes.txt'), 'mine');
      const t = await startTestServer({ data: dir });
      expect(mode(dir)).toBe(0o700);
      expect(mode(join(dir, 'homebase.json'))).toBe(0o600);
      await t.close();
    } finally {
      data.remove();
    }
  });
});

import { describe, expect, it, beforeEach, afterEach } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Settings } from './settings.js';

let dir: string;
let file: string;
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'hb-settings-')); file = join(dir, 'sub', 'settings.json'); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('settings', () => {
  it('starts empty, and a choice is kept across restarts', () => {
    expect(new Settings(file).get('dataDir')).toBeUndefined();
    const s = new Settings(file);
    s.set('dataDir', join(dir, 'data'));
    s.set('window', { x: 10, y: 20, width: 900, height: 700, maximized: false });
    const again = new Settings(file);
    expect(again.get('dataDir')).toBe(join(dir, 'data'));
    expect(again.get('window')).toEqual({ x: 10, y: 20, width: 900, height: 700, maximized: false });
    expect(readdirSync(join(dir, 'sub'))).toEqual(['settings.json']); // no temporary file left
  });

  it('unsetting removes the key', () => {
    const s = new Settings(file);
    s.set('dataDir', join(dir, 'data'));
    s.set('dataDir', undefined);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({});
  });

  it('refuses a relative data folder or absurd bounds, leaving the file as it was', () => {
    const s = new Settings(file);
    s.set('dataDir', join(dir, 'data'));
    expect(() => s.set('dataDir', 'relative/path')).toThrow();
    expect(() => s.set('window', { width: -5, height: 10 })).toThrow();
    expect(new Settings(file).get('dataDir')).toBe(join(dir, 'data'));
  });

  it('a damaged file gives defaults; a partly wrong one keeps its valid fields', () => {
    writeFileSync(join(dir, 'bad.json'), '{ not json');
    expect(new Settings(join(dir, 'bad.json')).get('dataDir')).toBeUndefined();
    writeFileSync(join(dir, 'partial.json'), JSON.stringify({ dataDir: join(dir, 'd'), window: { width: 'wide' }, closeNoticeShown: true }));
    const s = new Settings(join(dir, 'partial.json'));
    expect(s.get('dataDir')).toBe(join(dir, 'd'));
    expect(s.get('window')).toBeUndefined();
    expect(s.get('closeNoticeShown')).toBe(true);
  });
});

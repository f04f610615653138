// The shell's settings, kept in <userData>/settings.json: the data folder the user chose, the
// window's bounds and whether the "still running in the tray" notice was shown. A missing or
// damaged file means defaults; writes go through a temporary file and a rename, so a crash
// never leaves half a file.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { z } from 'zod';

const Bounds = z.object({
  x: z.number().int().optional(), y: z.number().int().optional(),
  width: z.number().int().min(200).max(20000), height: z.number().int().min(200).max(20000),
  maximized: z.boolean().optional(),
});
export type WindowBounds = z.infer<typeof Bounds>;

const Schema = z.object({
  dataDir: z.string().refine(isAbsolute).optional(),
  window: Bounds.optional(),
  closeNoticeShown: z.boolean().optional(),
});
export type SettingsData = z.infer<typeof Schema>;

export class Settings {
  private data: SettingsData;

  constructor(private readonly file: string) {
    this.data = Settings.read(file);
  }

  private static read(file: string): SettingsData {
    let raw: unknown;
    try { raw = JSON.parse(readFileSync(file, 'utf8')); } catch { return {}; }
    const parsed = Schema.safeParse(raw);
    if (parsed.success) return parsed.data;
    // Keep what is valid, field by field.
    const out: SettingsData = {};
    for (const key of Object.keys(Schema.shape) as (keyof SettingsData)[]) {
      const one = Schema.shape[key].safeParse((raw as Record<string, unknown> | null)?.[key]);
      if (one.success && one.data !== undefined) (out as Record<string, unknown>)[key] = one.data;
    }
    return out;
  }

  get<K extends keyof SettingsData>(key: K): SettingsData[K] { return this.data[key]; }

  set<K extends keyof SettingsData>(key: K, value: SettingsData[K]): void {
    const next = { ...this.data, [key]: value };
    if (value === undefined) delete next[key];
    Schema.parse(next);
    this.data = next;
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.data, null, 2) + '\n', { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}

#!/usr/bin/env node
// Makes the desktop app's icons from their one source, resources/icon.svg: icon.png (512 px,
// Linux and the window), icon.icns (macOS), icon.ico (Windows) and tray.png (32 px). Each size is
// rasterised by headless Chromium (Debian's `chromium`, or CHROMIUM=path), so that small sizes are
// drawn at their size rather than shrunk; the .icns and .ico containers hold those PNGs as they
// are (both formats accept PNG entries). The outputs are committed: run this after editing the SVG.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const resources = fileURLToPath(new URL('../resources/', import.meta.url));
const chromium = process.env.CHROMIUM ?? 'chromium';
const work = mkdtempSync(join(tmpdir(), 'homebase-icons-'));

function render(size) {
  const html = join(work, `${size}.html`);
  const out = join(work, `${size}.png`);
  writeFileSync(html, `<!doctype html><html><body style="margin:0;background:transparent">
<img src="${pathToFileURL(join(resources, 'icon.svg')).href}" style="display:block;width:${size}px;height:${size}px"></body></html>`);
  execFileSync(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--force-device-scale-factor=1',
    '--default-background-color=00000000', `--window-size=${size},${size}`, `--screenshot=${out}`, pathToFileURL(html).href],
  { stdio: 'ignore', timeout: 60_000 });
  const png = readFileSync(out);
  if (png.readUInt32BE(16) !== size || png.readUInt32BE(20) !== size) throw new Error(`chromium drew ${size} px wrong`);
  return png;
}

/** ICO: a directory of PNG entries (Windows Vista and later read PNG-compressed entries). */
function ico(entries) {
  const header = Buffer.alloc(6 + 16 * entries.length);
  header.writeUInt16LE(0, 0); header.writeUInt16LE(1, 2); header.writeUInt16LE(entries.length, 4);
  let offset = header.length;
  entries.forEach(([size, png], i) => {
    const e = 6 + 16 * i;
    header.writeUInt8(size >= 256 ? 0 : size, e); header.writeUInt8(size >= 256 ? 0 : size, e + 1);
    header.writeUInt16LE(1, e + 4); header.writeUInt16LE(32, e + 6);
    header.writeUInt32LE(png.length, e + 8); header.writeUInt32LE(offset, e + 12);
    offset += png.length;
  });
  return Buffer.concat([header, ...entries.map(([, png]) => png)]);
}

/** ICNS: 'icns', total length, then (type, length, PNG) entries. */
function icns(entries) {
  const parts = entries.map(([type, png]) => {
    const head = Buffer.alloc(8);
    head.write(type, 0, 'ascii'); head.writeUInt32BE(png.length + 8, 4);
    return Buffer.concat([head, png]);
  });
  const head = Buffer.alloc(8);
  head.write('icns', 0, 'ascii'); head.writeUInt32BE(8 + parts.reduce((n, p) => n + p.length, 0), 4);
  return Buffer.concat([head, ...parts]);
}

try {
  const png = Object.fromEntries([16, 32, 48, 64, 128, 256, 512, 1024].map((s) => [s, render(s)]));
  writeFileSync(join(resources, 'icon.png'), png[512]);
  writeFileSync(join(resources, 'tray.png'), png[32]);
  writeFileSync(join(resources, 'icon.ico'), ico([16, 32, 48, 64, 128, 256].map((s) => [s, png[s]])));
  writeFileSync(join(resources, 'icon.icns'), icns([
    ['ic07', png[128]], ['ic08', png[256]], ['ic09', png[512]], ['ic10', png[1024]],
    ['ic11', png[32]], ['ic12', png[64]], ['ic13', png[256]], ['ic14', png[512]],
  ]));
  process.stdout.write('resources/icon.png, tray.png, icon.ico, icon.icns written\n');
} finally {
  rmSync(work, { recursive: true, force: true });
}

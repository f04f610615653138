// electron-builder.yml, checked against electron-builder's own JSON schema (the scheme.json its
// app-builder-lib ships) and against what the desktop issue asks of the installers.
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import yaml from 'js-yaml';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const config = yaml.load(readFileSync(`${root}/electron-builder.yml`, 'utf8')) as Record<string, any>;
const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));

describe('electron-builder.yml', () => {
  it('is valid against electron-builder\'s schema', () => {
    const schema = require('app-builder-lib/scheme.json');
    const ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true });
    const validate = ajv.compile(schema);
    const ok = validate(config);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(ok).toBe(true);
  });

  it('the schema catches a mistake (the test can fail)', () => {
    const validate = new Ajv({ strict: false, allowUnionTypes: true }).compile(require('app-builder-lib/scheme.json'));
    expect(validate({ ...config, asar: 'yes please' })).toBe(false);
    expect(validate({ ...config, linux: { ...config.linux, tagret: ['AppImage'] } })).toBe(false);
  });

  it('starts the compiled shell while package.json main stays the library entry', () => {
    expect(config.extraMetadata.main).toBe('dist/electron/main.js');
    expect(existsSync(`${root}/electron/main.ts`)).toBe(true);
    expect(pkg.main).toBe('dist/server/public-api.js');
    expect(config.files).toEqual(expect.arrayContaining(['package.json', 'dist/server/**/*.js', 'dist/electron/**/*.js', 'dist/electron/preload.cjs']));
  });

  it('packs into asar with the native bcrypt binding unpacked, and names the app', () => {
    expect(config).toMatchObject({ appId: 'dev.homebase.desktop', productName: 'Homebase', asar: true });
    expect(config.asarUnpack).toContain('node_modules/@node-rs/**/*');
    expect(pkg.dependencies['@node-rs/bcrypt']).toBeDefined();
    // tsx runs a checkout's sources for the CLI; the app never loads it, nor its esbuild binary.
    expect(config.files).toEqual(expect.arrayContaining(['!node_modules/tsx/**', '!node_modules/esbuild/**', '!node_modules/@esbuild/**']));
  });

  it('builds AppImage and deb, dmg for x64 and arm64, and nsis, with committed icons', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toEqual([{ target: 'dmg', arch: ['x64', 'arm64'] }]);
    expect(config.win.target.map((t: { target: string }) => t.target)).toEqual(['nsis']);
    for (const icon of [config.linux.icon, config.mac.icon, config.win.icon, 'resources/tray.png', 'resources/icon.svg']) {
      expect(existsSync(`${root}/${icon}`), icon).toBe(true);
    }
    const png = readFileSync(`${root}/${config.linux.icon}`);
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([512, 512]);
    expect(readFileSync(`${root}/${config.mac.icon}`).subarray(0, 4).toString('ascii')).toBe('icns');
    const ico = readFileSync(`${root}/${config.win.icon}`);
    expect([ico.readUInt16LE(2), ico.readUInt16LE(4)]).toEqual([1, 6]); // an icon file with 6 sizes
  });

  it('npm run dist builds with it, and npm run build compiles the shell', () => {
    expect(pkg.scripts.dist).toBe('node scripts/dist.mjs');
    const dist = readFileSync(`${root}/scripts/dist.mjs`, 'utf8');
    expect(dist).toMatch(/'run', '--silent', 'build'/);
    expect(dist).toMatch(/electron-builder\/cli\.js/);
    expect(pkg.scripts.build).toMatch(/tsconfig\.build\.json/);
    expect(pkg.scripts.build).toMatch(/build:preload/);
    expect(pkg.devDependencies['electron-builder']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.devDependencies.electron).toMatch(/^41\.\d+\.\d+$/);
  });
});

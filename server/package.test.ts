// The package as a newcomer gets it: `npm pack`, installed in a fresh project, then the README
// followed as written. The quick-start block and the Vitest example (with its fixtures.json) are
// read from README.md, so this fails when the README drifts from what works. Also: LICENSE
// shipped, no tsx at run time, no install-script warnings, and the type declarations usable with
// skipLibCheck off and no @types/express (nor any other @types) installed.
//
// Slow (a build, an npm install from the registry): one install shared by the whole file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
let dir: string;
let project: string;
let installLog = '';

/** The fenced block of `lang` that follows the marker comment `<!-- name: ... -->`. */
export function readmeBlock(readme: string, marker: string, lang: string, skip = 0): string {
  const at = readme.indexOf(`<!-- ${marker}`);
  if (at < 0) throw new Error(`README.md has no <!-- ${marker} --> marker`);
  const re = new RegExp('```' + lang + '\\n([\\s\\S]*?)\\n```', 'g');
  re.lastIndex = at;
  let m: RegExpExecArray | null = null;
  for (let i = 0; i <= skip; i++) m = re.exec(readme);
  if (!m) throw new Error(`no \`\`\`${lang} block after <!-- ${marker} -->`);
  return m[1];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const { port } = s.address() as { port: number }; s.close(() => resolve(port)); });
    s.on('error', reject);
  });
}

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

/** Server sources (as `server/...ts`) that only tests and the test harness import: test helpers,
 *  which the build must leave out of the package. */
export function testOnlySources(): string[] {
  const isTest = (f: string) => /\.test\.ts$/.test(f) || f.startsWith('server/test/');
  const all = filesUnder(join(ROOT, 'server')).map((f) => relative(ROOT, f).split(sep).join('/')).filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts'));
  const importers = new Map<string, string[]>();
  for (const file of all) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.[^'"]+)['"]/g)) {
      const target = posix.normalize(posix.join(posix.dirname(file), m[1])).replace(/\.js$/, '.ts');
      importers.set(target, [...(importers.get(target) ?? []), file]);
    }
  }
  // The package's entries (`homebase`, `homebase/testing`) are its surface, whoever imports them.
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { types?: string }> };
  const entries = new Set(Object.values(manifest.exports).flatMap((e) => (e.types ? [e.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts')] : [])));
  return all.filter((f) => !isTest(f) && !entries.has(f) && (importers.get(f)?.length ?? 0) > 0 && importers.get(f)!.every(isTest));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'homebase-pack-'));
  const packed = await run('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  const tarball = join(dir, packed.stdout.trim().split('\n').pop()!);
  project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'newcomer', version: '1.0.0', private: true, type: 'module' }));
  const install = await run('npm', ['install', '--save-dev', '--no-audit', '--no-fund', '--prefer-offline', tarball],
    { cwd: project, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_loglevel: 'warn' } });
  installLog = install.stdout + install.stderr;
  // The test runner and the compiler come from this repository (the project's own install of
  // them would only repeat a download): linked, as a project's devDependencies would be. The
  // compiler may be there already (`homebase types` depends on it).
  for (const tool of ['vitest', 'typescript']) {
    if (!existsSync(join(project, 'node_modules', tool))) symlinkSync(join(ROOT, 'node_modules', tool), join(project, 'node_modules', tool), 'dir');
  }
}, 600_000);

afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

describe('the packed package', { timeout: 300_000 }, () => {
  it('ships LICENSE (MIT), the README and docs; tsx is not a run-time dependency; no install-script warnings', () => {
    const pkg = join(project, 'node_modules', 'homebase');
    expect(readFileSync(join(pkg, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    expect(existsSync(join(pkg, 'README.md'))).toBe(true);
    expect(existsSync(join(pkg, 'docs', 'errors.md'))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
    expect(manifest.license).toBe('MIT');
    expect(Object.keys(manifest.dependencies)).not.toContain('tsx');
    expect(existsSync(join(project, 'node_modules', 'tsx'))).toBe(false);
    expect(existsSync(join(project, 'node_modules', 'esbuild'))).toBe(false);
    expect(installLog).not.toMatch(/install-scripts|install script/i);
    expect(readdirSync(join(project, 'node_modules')).filter((n) => n === '@types')).toEqual([]);
  });

  it('ships no tests and no test helpers (files only tests import)', () => {
    const pkg = join(project, 'node_modules', 'homebase');
    const shipped = filesUnder(join(pkg, 'dist')).map((f) => relative(pkg, f).split(sep).join('/'));
    expect(shipped).toContain('dist/server/bundle/cli.js');
    expect(shipped).toContain('dist/server/bundle/cli.cjs');
    expect(existsSync(join(pkg, 'bin', 'code-cache.js'))).toBe(true);
    expect(shipped.filter((f) => /\.test\.|\.spec\.|^dist\/server\/test\/|\.fixture\./.test(f))).toEqual([]);
    const helpers = testOnlySources();
    const emitted = (source: string) => [source.replace(/\.ts$/, '.js'), source.replace(/\.ts$/, '.d.ts')].map((f) => `dist/${f}`);
    expect(helpers.flatMap(emitted).filter((f) => shipped.includes(f))).toEqual([]);
  });

  it('its type declarations type-check in a consumer with skipLibCheck off and no @types installed', async () => {
    writeFileSync(join(project, 'consumer.ts'), [
      "import { startServer, ConfigError, DumpFileError, type Homebase, type ServerOptions } from 'homebase';",
      "import { homebaseFixtures, useHomebase, createFork, globalSetup, type HomebaseFork, type HomebaseTestServer } from 'homebase/testing';",
      'export const fixtures = homebaseFixtures({ server: { inMemory: true }, fork: { ttl: 60 } });',
      'export const testing = [useHomebase, createFork, globalSetup] as const;',
      'export type Testing = [HomebaseFork, HomebaseTestServer];',
      "const options: ServerOptions = { port: 0, inMemory: true, seed: { format: 'homebase-dump', version: 1 } };",
      'export async function main(): Promise<string> {',
      '  const srv: Homebase = await startServer(options);',
      "  const info = await srv.snapshot('fixtures', { overwrite: true });",
      '  await srv.restore(info.name);',
      '  await srv.reset({ keepSchema: true });',
      '  await srv.close();',
      '  const errors: Error[] = [new ConfigError("x"), new DumpFileError("y")];',
      '  return `${srv.url} ${srv.consoleToken} ${srv.port} ${errors.length}`;',
      '}',
    ].join('\n'));
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, skipLibCheck: false, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022'], types: [] },
      files: ['consumer.ts'],
    }));
    const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project }).then(() => ({ out: '', ok: true }), (err: { stdout: string }) => ({ out: err.stdout, ok: false }));
    expect(result.out).not.toContain('TS7016');
    expect(result.out).toBe('');
    expect(result.ok).toBe(true);
  });

  it("README's Vitest example passes as written, with its fixtures.json", async () => {
    writeFileSync(join(project, 'fixtures.json'), readmeBlock(README, 'vitest-example', 'json'));
    writeFileSync(join(project, 'people.test.ts'), readmeBlock(README, 'vitest-example', 'ts'));
    const vitest = join(project, 'node_modules', 'vitest', 'vitest.mjs');
    const result = await run(process.execPath, [vitest, 'run', '--root', project, 'people.test.ts'], { cwd: project, env: { ...process.env, VITEST: undefined, NO_COLOR: '1' } as NodeJS.ProcessEnv })
      .then((r) => ({ ok: true, out: r.stdout + r.stderr }), (err: { stdout: string; stderr: string }) => ({ ok: false, out: err.stdout + err.stderr }));
    expect(result.out).toMatch(/Tests\s+5 passed/);
    expect(result.ok).toBe(true);
  });

  it("docs/testing.md's Vitest example (homebase/testing: a server per worker, a fork per test) passes as written", async () => {
    const page = readFileSync(join(ROOT, 'docs', 'testing.md'), 'utf8');
    writeFileSync(join(project, 'fixtures.json'), readmeBlock(page, 'testing-vitest-example', 'json'));
    writeFileSync(join(project, 'todos.test.ts'), readmeBlock(page, 'testing-vitest-example', 'ts'));
    const vitest = join(project, 'node_modules', 'vitest', 'vitest.mjs');
    const result = await run(process.execPath, [vitest, 'run', '--root', project, 'todos.test.ts'], { cwd: project, env: { ...process.env, VITEST: undefined, NO_COLOR: '1' } as NodeJS.ProcessEnv })
      .then((r) => ({ ok: true, out: r.stdout + r.stderr }), (err: { stdout: string; stderr: string }) => ({ ok: false, out: err.stdout + err.stderr }));
    expect(result.out).toMatch(/Tests\s+3 passed/);
    expect(result.ok).toBe(true);
    // Only the public entries are reachable: the server's internals are not part of the package's surface.
    const internal = await run(process.execPath, ['--input-type=module', '-e', "await import('homebase/dist/server/index.js')"], { cwd: project }).then(() => 'loaded', () => 'refused');
    expect(internal).toBe('refused');
  });

  it('the bin keeps a code cache: written by the first start, used as is by the next, replaced when damaged', async () => {
    const bin = join(project, 'node_modules', '.bin', 'homebase');
    const cache = join(dir, 'code-cache');
    /** One start of the installed bin: its first answer, then SIGTERM and its exit. */
    const start = async () => {
      const child = spawn(bin, ['serve', '--port', '0', '--host', '127.0.0.1', '--in-memory', '--json', '--quiet'],
        { cwd: project, env: { ...process.env, VITEST: undefined, HOMEBASE_CODE_CACHE: cache } as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d) => { err += d; });
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d) => { out += d; if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))).url); });
        void exited.then((code) => reject(new Error(`serve exited (${code}): ${err}`)));
      });
      const res = await fetch(`${url}/health`);
      expect(res.status).toBe(200);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    };
    const files = () => (existsSync(cache) ? readdirSync(cache) : []);
    await start();
    expect(files()).toHaveLength(1);
    const file = join(cache, files()[0]);
    const first = statSync(file);
    expect(first.size).toBeGreaterThan(100_000); // compiled code, not an empty file
    expect(first.mode & 0o077).toBe(0); // the user's own
    // Accepted by V8: left as it is (a rejected cache would be replaced, by a rename).
    await start();
    expect(statSync(file).ino).toBe(first.ino);
    // Damaged (same header, so offered to V8, which rejects it): the server starts all the same,
    // compiled from source, and the cache is made again.
    const bytes = readFileSync(file);
    const header = bytes.indexOf(0x0a) + 1;
    bytes.fill(0x5a, header);
    writeFileSync(file, bytes);
    await start();
    expect(files()).toHaveLength(1);
    const again = readFileSync(file);
    expect(again.subarray(0, header)).toEqual(bytes.subarray(0, header));
    expect(again.subarray(header).every((b) => b === 0x5a)).toBe(false);
  });

  it("README's quick start runs as written (on a free port instead of 4700)", async () => {
    const port = await freePort();
    const script = readmeBlock(README, 'quick-start', 'sh').replaceAll('127.0.0.1:4700', `127.0.0.1:${port}`).replace('homebase serve', `homebase serve --port ${port}`);
    // Its own process group: if the script fails before its `kill`, the server it started in the
    // background goes with the group.
    const child = spawn('sh', ['-e', '-c', script], { cwd: project, env: { ...process.env, VITEST: undefined } as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* the group is gone: the script stopped its server */ }
    expect(code, out).toBe(0);
    const lines = out.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ _id: 'todos', setting: { read: 'public', write: 'private', update: 'only-user' } });
    expect(lines[0].fields.map((f: { _id: string }) => f._id)).toEqual(['title', 'done', 'priority']);
    expect(lines[1]).toMatchObject({ title: 'Try Homebase', priority: 1, done: false });
    expect(lines[3].meta.total).toBe(2);
    expect(lines[4].data).toEqual([{ _id: lines[1]._id, title: 'Try Homebase', priority: 1 }]);
    expect(lines[5].error).toMatchObject({ code: 'VALIDATION_ERROR', message: "'priority' must be an integer from 1 to 5" });
    const log = readFileSync(join(project, 'homebase.log'), 'utf8');
    expect(log).toContain(`Workspace API:  http://127.0.0.1:${port}/api/app/demo`);
    expect(log).toMatch(/POST \/api\/app\/demo\/database 201 [\d.]+ ms/);
    // The script's `kill` stopped the server (checked before the group kill above could).
    expect(log).toContain('SIGTERM: finishing requests and flushing data');
  });
});

// `homebase types`, run as the real CLI: types of a running server's workspace, the README's
// typed client compiled with tsc --strict against them and run against that server; --data on a
// folder (refused while a server holds it); --watch; bad input in one line.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, spawnCli } from './test/spawn.js';
import { startTestServer, tempDataDir, type TestServer, type TestUser } from './test/harness.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TODOS = {
  _id: 'todos',
  setting: { read: 'public', write: 'private', update: 'only-user' },
  fields: [
    { _id: 'title', type: 'string', required: true },
    { _id: 'done', type: 'boolean', default: false },
    { _id: 'priority', type: 'integer', options: { min: 1, max: 5 } },
  ],
};

/** The README's typed-client block, as written. */
function readmeSnippet(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const m = /<!-- typed-client:[^>]*-->\n```ts\n([\s\S]*?)```/.exec(readme);
  if (!m) throw new Error('README.md has no typed-client block');
  return m[1];
}

/** A folder for a small TypeScript project that uses this checkout's node_modules. */
function project(): { dir: string; remove: () => void } {
  const tmp = tempDataDir('homebase-typed-client-');
  symlinkSync(join(ROOT, 'node_modules'), join(tmp.dir, 'node_modules'), 'dir');
  writeFileSync(join(tmp.dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  writeFileSync(join(tmp.dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext',
      lib: ['es2022', 'dom'], types: ['node'], skipLibCheck: false,
    },
    include: ['*.ts'],
  }));
  return tmp;
}

const run = (cmd: string[], cwd: string, env: Record<string, string> = {}) =>
  exited(spawn(process.execPath, cmd, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));

let t: TestServer;
let user: TestUser;
beforeAll(async () => {
  t = await startTestServer();
  expect((await t.req('POST', '/database', { body: TODOS })).status).toBe(201);
  user = await t.user('Ann');
});
afterAll(async () => { await t?.close(); });

// Each step spawns a process (the CLI, tsc, the snippet): slow on a busy machine.
const SLOW = 180_000;

describe('homebase types', () => {
  it('writes types from a running server: the README\'s typed client compiles under tsc --strict and runs against it', async () => {
    const p = project();
    try {
      const out = join(p.dir, 'homebase-types.ts');
      const gen = await exited(spawnCli(['types', '--url', t.url, '--out', out]));
      expect(gen.stderr).toContain(`Wrote the types of workspace 'demo' to ${out}`);
      expect(gen.code).toBe(0);
      const types = readFileSync(out, 'utf8');
      expect(types).toContain('export interface paths');
      expect(types).toContain('export type TodosCreate = Collections["todos"]["create"];');

      // The README's block, pointed at this server; and the mistakes the types must catch.
      const snippet = readmeSnippet();
      expect(snippet.split('\n').filter(Boolean)).toHaveLength(5);
      expect(snippet).toContain("'http://127.0.0.1:4700/api/app/demo'");
      writeFileSync(join(p.dir, 'main.ts'), snippet.replace('http://127.0.0.1:4700/api/app/demo', t.api));
      writeFileSync(join(p.dir, 'mistakes.ts'), [
        "import createClient from 'openapi-fetch';",
        "import type { paths } from './homebase-types.js';",
        "const api = createClient<paths>({ baseUrl: 'http://x' });",
        "await api.POST('/database/todos', { body: { priority: 2 } });", // no title
        "await api.POST('/database/todos', { body: { title: 'x', priority: 'high' } });", // not a number
        "const page = await api.GET('/database/todos', { params: { query: { 'filter[priority][$lte]': 2, fields: 'title' } } });",
        'page.data?.data[0].createdAt.slice(0);', // list items: only _id is sure to be there
        '',
      ].join('\n'));
      const tsc = await run([join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', p.dir], p.dir);
      const errors = tsc.stdout.split('\n').filter((l) => /error TS/.test(l));
      expect(errors.filter((l) => l.startsWith('main.ts')), tsc.stdout).toEqual([]);
      expect(errors.filter((l) => l.startsWith('mistakes.ts(4,')).join('\n')).toMatch(/title/);
      expect(errors.filter((l) => l.startsWith('mistakes.ts(5,')).join('\n')).toMatch(/string.*number|number/);
      expect(errors.filter((l) => l.startsWith('mistakes.ts(7,')).join('\n')).toMatch(/possibly 'undefined'/);
      expect(errors).toHaveLength(3);

      // It runs: the record is created with the user's token.
      const ran = await run(['--import', 'tsx', join(p.dir, 'main.ts')], p.dir, { USER_TOKEN: user.token });
      expect(ran.stderr).toBe('');
      const id = /^created (\S+): Typed at last$/m.exec(ran.stdout)?.[1];
      expect(id, ran.stdout).toBeTruthy();
      const rec = await t.req('GET', `/database/todos/${id}`);
      expect(rec.status).toBe(200);
      expect(rec.body).toMatchObject({ title: 'Typed at last', priority: 2, done: false, _owner: user._id });
    } finally {
      p.remove();
    }
  }, SLOW);

  it('says in one line when no server answers or the workspace does not exist (exit 1)', async () => {
    // A port nobody listens on: bind one, then free it.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => { const a = s.address() as { port: number }; s.close(() => resolve(a.port)); });
    });
    const none = await exited(spawnCli(['types', '--url', `http://127.0.0.1:${port}`]));
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(new RegExp(`^homebase types: no Homebase server answers at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\).*\\n$`));
    expect(none.stdout).toBe('');
    const unknown = await exited(spawnCli(['types', '--url', t.url, '--workspace', 'nope']));
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^homebase types: the server at http:\/\/127\.0\.0\.1:\d+ has no workspace 'nope'\n$/);
    const both = await exited(spawnCli(['types', '--url', t.url, '--data', 'x']));
    expect(both.code).toBe(1);
    expect(both.stderr).toBe('homebase types: give --url or --data, not both\n');
  }, SLOW);

  it('--data reads a folder with no server on it, and refuses one a running server holds', async () => {
    const data = tempDataDir();
    try {
      const srv = await startTestServer({ data: data.dir });
      expect((await srv.req('POST', '/database', { body: { _id: 'notes', setting: { read: 'public', write: 'private', update: 'private' }, fields: [{ _id: 'body', type: 'string', required: true }] } })).status).toBe(201);
      const held = await exited(spawnCli(['types', '--data', data.dir]));
      expect(held.code).toBe(1);
      expect(held.stderr).toMatch(/^homebase types: the data folder .* is held by a running Homebase server: ask it instead with --url .*\n$/);
      await srv.close();

      const ok = await exited(spawnCli(['types', '--data', data.dir]));
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toContain('"RecordCreate.notes": {');
      expect(ok.stdout).toMatch(/"RecordCreate\.notes": \{[^}]*\bbody: string;/);
      expect(ok.stdout).toContain('export type Notes = Collections["notes"]["record"];');
      const missing = await exited(spawnCli(['types', '--data', data.dir, '--workspace', 'nope']));
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/^homebase types: no workspace 'nope' in .* \(it has: demo\)\n$/);
    } finally {
      data.remove();
    }
  }, SLOW);

  it('--watch writes the file again when the schema changes', async () => {
    const dir = tempDataDir('homebase-types-watch-');
    const out = join(dir.dir, 'types', 'homebase.ts');
    mkdirSync(join(dir.dir, 'types'));
    const child = spawnCli(['types', '--url', t.api, '--out', out, '--watch'], { HOMEBASE_TYPES_WATCH_MS: '100' });
    const done = exited(child);
    let stderr = '';
    const seen = (text: string) => new Promise<void>((resolve, reject) => {
      const check = () => { if (stderr.includes(text)) { child.stderr!.off('data', onData); resolve(); } };
      const onData = (d: Buffer) => { stderr += d; check(); };
      child.stderr!.on('data', onData);
      child.once('exit', () => reject(new Error(`exited before '${text}': ${stderr}`)));
      check();
    });
    try {
      await seen('Watching');
      expect(readFileSync(out, 'utf8')).not.toContain('estimate');
      expect((await t.req('POST', '/database/todos/fields', { body: { _id: 'estimate', type: 'number' } })).status).toBe(201);
      await seen('Schema changed');
      expect(readFileSync(out, 'utf8')).toMatch(/"RecordCreate\.todos": \{[^}]*estimate\?: number \| null;/);
      child.kill('SIGTERM');
      expect((await done).code).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await t.req('DELETE', '/database/todos/fields/estimate');
      dir.remove();
    }
  }, SLOW);
});

// `homebase types`: writes the TypeScript types of a workspace (for openapi-fetch) from its
// OpenAPI document, read from a running server (`--url`, no token needed) or from a data folder
// with no server on it (`--data`: the folder is opened under its lock, no listener started).
// `--watch` keeps the file in step with the schema: it asks the server every 2 s whether the
// document changed (If-None-Match on its ETag), or re-reads the folder when its workspace
// settings file changes.
import { existsSync, statSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_PORT, VERSION } from './core/config.js';
import { DataFolderLockedError } from './storage/lock.js';
import { withDataFolder, OfflineError } from './modules/workspaces/index.js';
import { listCollections } from './modules/database/index.js';
import { buildDocument } from './modules/openapi/index.js';
import { typesFromDocument } from './modules/openapi/index.js';
import type { Schema } from './modules/openapi/index.js';

/** A failure reported in one line on stderr (exit 1): no server, unknown workspace, bad folder. */
export class TypesCommandError extends Error {}

export const TYPES_HELP = `Usage: homebase types [--url URL | --data DIR] [--workspace demo] [--out FILE] [--watch]

Writes the TypeScript types of a workspace, generated with openapi-typescript from its OpenAPI
document: the \`paths\` that openapi-fetch's createClient<paths>() takes, and each collection's
record, create, update and list-item shapes (\`Todos\`, \`TodosCreate\`, \`TodosUpdate\`...).

  --url URL        a running server (default http://127.0.0.1:${DEFAULT_PORT}); no token is needed
  --data DIR       a data folder with no server running on it (read under its lock; no listener)
  --workspace ID   the workspace (default demo)
  --out FILE       the file to write (default: stdout)
  --watch          keep running, and write the file again whenever the schema changes (needs --out)

Docs: docs/openapi.md ("homebase types")
`;

export interface TypesOptions { url?: string; data?: string; workspace: string; out?: string; watch: boolean }

export function typesOptions(args: string[]): TypesOptions {
  const { values } = parseArgs({
    args, allowPositionals: false, strict: true,
    options: { url: { type: 'string' }, data: { type: 'string' }, workspace: { type: 'string' }, out: { type: 'string' }, watch: { type: 'boolean' } },
  });
  if (values.url !== undefined && values.data !== undefined) throw new TypesCommandError('give --url or --data, not both');
  if (values.watch && !values.out) throw new TypesCommandError('--watch needs --out FILE (the file it keeps up to date)');
  return { url: values.url, data: values.data, workspace: values.workspace ?? 'demo', out: values.out, watch: !!values.watch };
}

/** `http://h:p`, `http://h:p/api` or `http://h:p/api/app/ws` → the document's address. */
export function documentUrl(url: string, workspace: string): string {
  let base: URL;
  try { base = new URL(url); } catch { throw new TypesCommandError(`--url must be an http(s) address such as http://127.0.0.1:${DEFAULT_PORT} (got '${url}')`); }
  if (!/^https?:$/.test(base.protocol)) throw new TypesCommandError(`--url must be an http(s) address (got '${url}')`);
  const path = base.pathname.replace(/\/+$/, '');
  const api = /\/api$/.test(path) ? path : /\/api\/app\/[^/]+$/.test(path) ? path.replace(/\/app\/[^/]+$/, '') : `${path}/api`;
  return `${base.origin}${api}/app/${encodeURIComponent(workspace)}/openapi.json`;
}

interface Fetched { doc?: Schema; etag?: string }

/** The document from a running server; `etag` asks only whether it changed (undefined doc: no). */
async function fromServer(address: string, workspace: string, etag?: string): Promise<Fetched> {
  let res: Response;
  try {
    res = await fetch(address, { headers: etag ? { 'if-none-match': etag } : {} });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    throw new TypesCommandError(`no Homebase server answers at ${new URL(address).origin}${cause ? ` (${cause})` : ''}: start one with 'homebase serve', or pass --url or --data`);
  }
  if (res.status === 304) return { etag };
  const text = await res.text();
  if (res.status === 404) throw new TypesCommandError(`the server at ${new URL(address).origin} has no workspace '${workspace}'`);
  if (res.status !== 200) {
    let message = text.slice(0, 200);
    try { message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message; } catch { /* not JSON */ }
    throw new TypesCommandError(`${address} answered ${res.status}: ${message}`);
  }
  let doc: Schema;
  try { doc = JSON.parse(text) as Schema; } catch { throw new TypesCommandError(`${address} did not answer an OpenAPI document (is it a Homebase server?)`); }
  if (typeof doc.openapi !== 'string') throw new TypesCommandError(`${address} did not answer an OpenAPI document (is it a Homebase server?)`);
  return { doc, etag: res.headers.get('etag') ?? undefined };
}

/** The document of a workspace of a data folder, built as the server builds it. */
async function fromFolder(dataDir: string, workspace: string): Promise<Schema> {
  if (!existsSync(join(dataDir, 'homebase.json'))) throw new TypesCommandError(`${dataDir} is not a Homebase data folder (no homebase.json)`);
  try {
    return await withDataFolder(dataDir, async (ctx) => {
      const ws = ctx.registry.get(workspace);
      if (!ws) throw new TypesCommandError(`no workspace '${workspace}' in ${dataDir} (it has: ${ctx.registry.list().map((w) => w._id).join(', ') || 'none'})`);
      return buildDocument({ apiBase: `http://127.0.0.1:${DEFAULT_PORT}/api`, workspace, version: VERSION, collections: listCollections(ws) });
    });
  } catch (err) {
    if (err instanceof DataFolderLockedError) {
      throw new TypesCommandError(`the data folder ${dataDir} is held by a running Homebase server: ask it instead with --url (e.g. --url http://127.0.0.1:${DEFAULT_PORT})`);
    }
    if (err instanceof OfflineError) throw new TypesCommandError(err.message);
    throw err;
  }
}

/** Writes `text` to `out` whole (a temporary file renamed over it), or to stdout. */
async function emit(text: string, out: string | undefined): Promise<void> {
  if (!out) {
    await new Promise<void>((ok, fail) => process.stdout.write(text, (err) => (err ? fail(err) : ok())));
    return;
  }
  const file = resolve(out);
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, text);
  await rename(temp, file);
}

export interface TypesRun {
  /** Resolves when the command is done (at once without --watch; on stop() with it). */
  done: Promise<void>;
  stop(): void;
}

/** Runs the command; `log` gets the progress lines (stderr). */
export async function runTypes(o: TypesOptions, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<TypesRun> {
  const address = o.data === undefined ? documentUrl(o.url ?? `http://127.0.0.1:${DEFAULT_PORT}`, o.workspace) : undefined;
  const source = address ?? resolve(o.data!);
  const generate = async (doc: Schema) => typesFromDocument(doc, { source, workspace: o.workspace });

  let first: Fetched = address ? await fromServer(address, o.workspace) : { doc: await fromFolder(o.data!, o.workspace) };
  let text = await generate(first.doc!);
  await emit(text, o.out);
  if (o.out) log(`Wrote the types of workspace '${o.workspace}' to ${o.out}`);
  if (!o.watch) return { done: Promise.resolve(), stop: () => undefined };

  log(`Watching ${address ?? join(source, 'workspaces', o.workspace, 'settings.json')} for schema changes (Ctrl-C stops)`);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const settings = o.data !== undefined ? join(o.data, 'workspaces', o.workspace, 'settings.json') : undefined;
  const stamp = () => { try { const s = statSync(settings!); return `${s.mtimeMs}:${s.size}`; } catch { return ''; } };
  let lastStamp = settings ? stamp() : '';
  let lastError = '';
  const tick = async () => {
    try {
      let doc: Schema | undefined;
      if (address) {
        const next = await fromServer(address, o.workspace, first.etag);
        doc = next.doc;
        if (doc) first = next;
      } else {
        const now = stamp();
        if (now !== lastStamp) { doc = await fromFolder(o.data!, o.workspace); lastStamp = now; }
      }
      lastError = '';
      if (!doc) return;
      const next = await generate(doc);
      if (next === text) return;
      text = next;
      await emit(text, o.out);
      log(`Schema changed: wrote ${o.out} again`);
    } catch (err) {
      // While watching, a server that went away (or a folder a server now holds) is said once;
      // the watch goes on and picks up where it left off.
      const message = (err as Error).message;
      if (message !== lastError) log(`homebase types: ${message}`);
      lastError = message;
    }
  };
  const done = new Promise<void>((ok) => {
    const loop = async () => {
      while (!stopped) {
        await new Promise<void>((w) => { wake = w; timer = setTimeout(w, WATCH_INTERVAL_MS); });
        if (!stopped) await tick();
      }
      ok();
    };
    void loop();
  });
  return { done, stop: () => { stopped = true; if (timer) clearTimeout(timer); wake?.(); } };
}

/** How often --watch asks (a request to the server, or a stat of the settings file). */
export const WATCH_INTERVAL_MS = Number(process.env.HOMEBASE_TYPES_WATCH_MS) || 2000;

/** The command line's entry: errors of bad input are one line on stderr and exit 1. */
export async function typesCommand(args: string[]): Promise<void> {
  if (args.includes('--help') || args.includes('-h')) { process.stdout.write(TYPES_HELP); return; }
  try {
    let options: TypesOptions;
    try { options = typesOptions(args); } catch (err) { throw new TypesCommandError((err as Error).message); }
    const run = await runTypes(options);
    const stop = () => run.stop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    await run.done;
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  } catch (err) {
    if (!(err instanceof TypesCommandError)) throw err;
    process.stderr.write(`homebase types: ${err.message}\n`);
    process.exitCode = 1;
  }
}

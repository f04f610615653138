// Every answer the test servers give to a workspace API path (v1: `/api/app/{ws}/...`) is checked
// against that workspace's OpenAPI document as it stands right after the answer: the status must
// be declared for that operation, the Content-Type among the declared ones, and a JSON body valid
// against the declared schema (Ajv, JSON Schema 2020-12 = the dialect of OpenAPI 3.1, with
// ajv-formats). The harness calls it on every request it sends, so that the document and the
// server cannot drift apart. The document is the one `GET /openapi.json` serves (the same
// builder, fed the workspace's current collections), built in process so that checking sends no
// request of its own (request logs and counters stay as the suites expect them).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { StartedServer } from '../index.js';
import { buildDocument } from '../modules/openapi/document.js';
import { listCollections } from '../modules/database/collections.js';

// ajv-formats is CommonJS with a default export.
type AddFormats = (ajv: Ajv2020) => unknown;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;

type Json = Record<string, any>;
const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'];

interface Compiled { doc: Json; ajv: Ajv2020; validators: Map<string, ValidateFunction>; matchers: Array<{ path: string; segments: string[]; rank: string }> }
const cache = new Map<string, Compiled>();

/** The document of a workspace with these collections, with its validator (a few kept). */
function compiled(srv: StartedServer, workspace: string): Compiled | undefined {
  const ws = srv.ctx.registry.get(workspace);
  if (!ws) return undefined;
  let collections;
  try { collections = listCollections(ws); } catch { return undefined; }
  const key = JSON.stringify(collections);
  const hit = cache.get(key);
  if (hit) { cache.delete(key); cache.set(key, hit); return hit; }
  const doc = buildDocument({ apiBase: srv.url, workspace, version: srv.ctx.config.version, collections }) as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: 'openapi.json' });
  const matchers = Object.keys(doc.paths).map((path) => {
    const segments = path.split('/').slice(1);
    // Literal segments win over templates, the later ones first (`/database/{c}/fields` over
    // `/database/todos/{id}`), as the server's routes are ordered.
    const rank = segments.map((s) => (s.startsWith('{') ? '0' : '1')).reverse().join('');
    return { path, segments, rank };
  }).sort((a, b) => (a.rank < b.rank ? 1 : a.rank > b.rank ? -1 : 0));
  const entry = { doc, ajv, validators: new Map<string, ValidateFunction>(), matchers };
  cache.set(key, entry);
  if (cache.size > 4) cache.delete(cache.keys().next().value as string);
  return entry;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** The operation a request reaches: the first matching path (by rank) that has the method. */
function findOperation(c: Compiled, method: string, path: string): { path: string; method: string; op: Json } | undefined {
  // Express routes ignore one trailing slash (`/database/c/id/`).
  const segments = (path.length > 1 ? path.replace(/\/$/, '') : path).split('/').slice(1);
  for (const m of c.matchers) {
    if (m.segments.length !== segments.length) continue;
    // Express matches literal segments regardless of case (`/database/c/Fields` is the fields route).
    if (!m.segments.every((s, i) => s.startsWith('{') ? segments[i] !== '' : s.toLowerCase() === segments[i].toLowerCase())) continue;
    const item = c.doc.paths[m.path];
    if (item[method]) return { path: m.path, method, op: item[method] };
    // Express answers HEAD with the GET route (without the body).
    if (method === 'head' && item.get) return { path: m.path, method: 'get', op: item.get };
  }
  return undefined;
}

export interface Answer { status: number; headers: Headers; text: string; body: unknown }

/** Problems of one answer to `method url`, or an empty list; `undefined` when not checked. */
export function conformanceProblems(srv: StartedServer, method: string, url: string, res: Answer): string[] | undefined {
  const prefix = `${srv.url}/app/`;
  if (!url.startsWith(prefix)) return undefined;
  const rest = new URL(url).pathname.slice(new URL(prefix).pathname.length);
  const slash = rest.indexOf('/');
  const workspace = decodeURIComponent(slash < 0 ? rest : rest.slice(0, slash));
  const path = slash < 0 ? '' : rest.slice(slash);
  const m = method.toLowerCase();
  if (!METHODS.includes(m)) return undefined;
  const c = compiled(srv, workspace);
  // An unknown (or deleted) workspace: every route answers the same 404.
  if (!c) return res.status === 404 || res.status === 503 ? [] : [`the workspace ${workspace} is unknown, yet the answer is ${res.status}`];
  // A fault rule of the test-suite controls answers whatever status it was given, with the
  // code INJECTED_FAULT: the test's own doing, not an answer of the API the document describes.
  if ((res.body as { error?: { code?: unknown } } | undefined)?.error?.code === 'INJECTED_FAULT') return [];
  const found = findOperation(c, m, path);
  const where = `${method.toUpperCase()} ${path} → ${res.status}`;
  if (!found) {
    if (m === 'options') return []; // CORS preflights are answered on every path
    return res.status === 404 || res.status === 405 ? [] : [`${where}: no operation of the document matches, yet the answer is not a 404`];
  }
  let response = found.op.responses[String(res.status)];
  if (!response) return [`${where}: status not declared for ${found.method.toUpperCase()} ${found.path} (declared: ${Object.keys(found.op.responses).join(', ')})`];
  let pointer = `#/paths/${escapePointer(found.path)}/${found.method}/responses/${res.status}`;
  if (response.$ref) {
    pointer = response.$ref;
    response = pointer.split('/').slice(1).reduce((o: Json, k: string) => o[k], c.doc);
  }
  if (m === 'head' || res.text === '') return [];
  const type = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  const content: Json = response.content ?? {};
  const declared = Object.keys(content);
  if (!declared.length) return [`${where}: a ${type || 'body'} answer where the document declares no body`];
  const media = declared.find((d) => d === type) ?? declared.find((d) => d === '*/*');
  if (!media) return [`${where}: Content-Type ${type || '(none)'} not declared (declared: ${declared.join(', ')})`];
  if (!/json/.test(media) || !content[media].schema) return [];
  const schemaPointer = `openapi.json${pointer}/content/${escapePointer(media)}/schema`;
  let validate = c.validators.get(schemaPointer);
  if (!validate) {
    validate = c.ajv.compile({ $ref: schemaPointer });
    c.validators.set(schemaPointer, validate);
  }
  if (validate(res.body)) return [];
  return (validate.errors ?? []).slice(0, 8).map((e) => `${where}: body${e.instancePath} ${e.message ?? e.keyword}${e.keyword === 'additionalProperties' || e.keyword === 'enum' ? ` ${JSON.stringify(e.params)}` : ''} — ${res.text.slice(0, 300)}`);
}

/** A request body the document accepts but the server refused with 422: the document is looser
 *  than the server there (or states the rule only in words). undefined otherwise. */
export function looseRequest(srv: StartedServer, method: string, url: string, body: unknown, status: number): string | undefined {
  const prefix = `${srv.url}/app/`;
  if (status !== 422 || body === undefined || !url.startsWith(prefix)) return undefined;
  const rest = new URL(url).pathname.slice(new URL(prefix).pathname.length);
  const slash = rest.indexOf('/');
  if (slash < 0) return undefined;
  const c = compiled(srv, decodeURIComponent(rest.slice(0, slash)));
  const found = c && findOperation(c, method.toLowerCase(), rest.slice(slash));
  const schema = found?.op.requestBody?.content?.['application/json']?.schema;
  if (!c || !found || !schema) return undefined;
  const pointer = `openapi.json#/paths/${escapePointer(found.path)}/${found.method}/requestBody/content/application~1json/schema`;
  let validate = c.validators.get(pointer);
  if (!validate) { validate = c.ajv.compile({ $ref: pointer }); c.validators.set(pointer, validate); }
  return validate(body) ? `${method.toUpperCase()} ${found.path}: ${JSON.stringify(body).slice(0, 300)}` : undefined;
}

/** Throws when an answer disagrees with the document (the harness calls it on every request;
 *  HOMEBASE_TEST_OPENAPI=off turns it off for a run). */
export function assertConforms(srv: StartedServer, method: string, url: string, res: Answer): void {
  if (process.env.HOMEBASE_TEST_OPENAPI === 'off') return;
  const problems = conformanceProblems(srv, method, url, res);
  if (problems?.length) throw new Error(`The answer disagrees with the workspace's OpenAPI document:\n  ${problems.join('\n  ')}`);
}

/** A fetch that checks, like the harness's requests, each answer to a workspace v1 path (for
 *  suites that speak a protocol through fetch directly, such as tus). */
export function checkedFetch(srv: () => StartedServer): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = init?.method ?? (typeof input === 'object' && 'method' in input ? input.method : 'GET');
    const text = await res.clone().text();
    let body: unknown = text;
    try { body = text ? JSON.parse(text) : undefined; } catch { /* not JSON */ }
    assertConforms(srv(), method, url, { status: res.status, headers: res.headers, text, body });
    return res;
  };
}

// The tables of the robustness sweep: every endpoint (workspace and console API) with a valid
// call, the hostile inputs each one gets, and the check every answer must pass.
import jwt from 'jsonwebtoken';
import { ERROR_STATUS } from '../shared/error-codes.js';
import type { Fixture, Hit } from './robustness-fixture.js';
import { USER_PASSWORD } from './robustness-fixture.js';

export interface Endpoint {
  method: string;
  /** Workspace API paths start with `/` under `/api/app/{ws}`; console paths start with `/workspaces`.
   *  `{name}` is a fixture id (Fixture.ids). */
  path: string;
  console?: boolean;
  success: number;
  /** A valid JSON body (absent: no body). */
  body?: (f: Fixture) => unknown | Promise<unknown>;
  /** How the body travels, when not JSON. */
  kind?: 'multipart' | 'tus';
  list?: boolean;
  /** Whose token: admin (default), a fresh signed-in user, or none (self-service auth). */
  as?: 'admin' | 'fresh-user' | 'anonymous';
  /** Placeholders made anew for the success call (the call consumes them). */
  fresh?: string[];
}

const E = (method: string, path: string, success: number, extra: Partial<Endpoint> = {}): Endpoint => ({ method, path, success, ...extra });
const json = (body: Endpoint['body']) => ({ body });

/** Every endpoint of the workspace and console APIs (plus the GET-by-id routes the modules add). */
export const ENDPOINTS: Endpoint[] = [
  // database: collections
  E('GET', '/database', 200, { list: true }),
  E('POST', '/database', 201, json((f) => ({ _id: `c${f.uniq()}`, name: 'New', setting: { read: 'public', write: 'private', update: 'private' } }))),
  E('PUT', '/database', 200, json(() => ({ _id: 'things', name: 'Things' }))),
  E('PATCH', '/database', 200, json(() => ({ _id: 'things', name: 'Things' }))),
  E('PUT', '/database/{col}', 200, json(() => ({ name: 'Things' }))),
  E('PATCH', '/database/{col}', 200, json(() => ({ name: 'Things' }))),
  E('DELETE', '/database/{col}', 204, { fresh: ['col'] }),
  // database: fields, views, indexes
  E('GET', '/database/{col}/fields', 200),
  E('POST', '/database/{col}/fields', 201, json((f) => ({ _id: `f${f.uniq()}`, name: 'Extra', type: 'string' }))),
  E('GET', '/database/{col}/fields/{field}', 200),
  E('PUT', '/database/{col}/fields/{field}', 200, json(() => ({ name: 'Name' }))),
  E('PATCH', '/database/{col}/fields/{field}', 200, json(() => ({ name: 'Name' }))),
  E('DELETE', '/database/{col}/fields/{field}', 204, { fresh: ['field'] }),
  E('GET', '/database/{col}/views', 200),
  E('POST', '/database/{col}/views', 201, json((f) => ({ _id: `v${f.uniq()}`, name: 'Adults', filter: { age: { $gte: 18 } }, sort: '-age' }))),
  E('GET', '/database/{col}/views/{view}', 200),
  E('PUT', '/database/{col}/views/{view}', 200, json(() => ({ name: 'View' }))),
  E('PATCH', '/database/{col}/views/{view}', 200, json(() => ({ name: 'View' }))),
  E('DELETE', '/database/{col}/views/{view}', 204, { fresh: ['view'] }),
  E('GET', '/database/{col}/indexes', 200),
  E('POST', '/database/{col}/indexes', 201, json((f) => ({ _id: `i${f.uniq()}`, fields: ['name'] }))),
  E('GET', '/database/{col}/indexes/{index}', 200),
  E('DELETE', '/database/{col}/indexes/{index}', 204, { fresh: ['index'] }),
  // database: records
  E('GET', '/database/{col}', 200, { list: true }),
  E('POST', '/database/{col}', 201, json(() => ({ name: 'Bob', age: 41, tags: ['x'], meta: { a: 1 } }))),
  E('GET', '/database/{col}/{rec}', 200),
  E('PUT', '/database/{col}/{rec}', 200, json(() => ({ age: 31 }))),
  E('PATCH', '/database/{col}/{rec}', 200, json(() => ({ name: 'Ann' }))),
  E('DELETE', '/database/{col}/{rec}', 204, { fresh: ['rec'] }),
  // auth
  E('POST', '/auth/register', 201, { as: 'anonymous', ...json((f) => ({ email: `new-${f.uniq()}@example.test`, password: 'password-123', name: 'New' })) }),
  E('POST', '/auth/login', 200, { as: 'anonymous', ...json(() => ({ email: 'admin@example.com', password: 'admin-password-1' })) }),
  E('POST', '/auth/refresh', 200, { as: 'anonymous', ...json(async (f) => ({ refreshToken: await f.refreshToken() })) }),
  E('POST', '/auth/logout', 204, { as: 'fresh-user', ...json(() => ({})) }),
  E('POST', '/auth/forgot-password', 202, { as: 'anonymous', ...json(() => ({ email: 'nobody@example.test' })) }),
  E('POST', '/auth/reset-password', 204, { as: 'anonymous', ...json(async (f) => ({ token: await f.resetToken(), password: 'brand-new-pass-1' })) }),
  E('GET', '/auth/me', 200),
  E('PUT', '/auth/me', 200, json(() => ({ name: 'Admin' }))),
  E('PATCH', '/auth/me', 200, json(() => ({ name: 'Admin' }))),
  E('PUT', '/auth/change-password', 200, { as: 'fresh-user', ...json(() => ({ currentPassword: USER_PASSWORD, newPassword: 'other-password-2' })) }),
  E('PATCH', '/auth/change-password', 200, { as: 'fresh-user', ...json(() => ({ currentPassword: USER_PASSWORD, newPassword: 'other-password-2' })) }),
  E('POST', '/auth/impersonate/{user}', 200),
  // users
  E('GET', '/users', 200, { list: true }),
  E('GET', '/users/{user}', 200),
  E('POST', '/users', 201, json((f) => ({ email: `u-${f.uniq()}@example.test`, password: 'password-123', name: 'U', role: 'user' }))),
  E('PUT', '/users/{user}', 200, json(() => ({ name: 'Someone' }))),
  E('PATCH', '/users/{user}', 200, json(() => ({ name: 'Someone' }))),
  E('DELETE', '/users/{user}', 204, { fresh: ['user'] }),
  // storage
  E('POST', '/storage/upload', 201, { kind: 'multipart' }),
  E('POST', '/storage/upload/tus', 201, { kind: 'tus' }),
  E('GET', '/storage', 200, { list: true }),
  E('GET', '/storage/{file}', 200),
  E('GET', '/storage/{file}/download', 200),
  E('DELETE', '/storage/{file}', 204, { fresh: ['file'] }),
  // chats
  E('GET', '/chats/channels', 200, { list: true }),
  E('POST', '/chats/channels', 201, json((f) => ({ name: 'Room', type: 'group', members: [f.ids.member] }))),
  E('GET', '/chats/channels/{channel}', 200),
  E('PUT', '/chats/channels/{channel}', 200, json(() => ({ name: 'General' }))),
  E('PATCH', '/chats/channels/{channel}', 200, json(() => ({ name: 'General' }))),
  E('DELETE', '/chats/channels/{channel}', 204, { fresh: ['channel'] }),
  E('GET', '/chats/messages/{msg}', 200),
  E('PUT', '/chats/messages/{msg}', 200, json(() => ({ text: 'edited' }))),
  E('PATCH', '/chats/messages/{msg}', 200, json(() => ({ text: 'edited' }))),
  E('DELETE', '/chats/messages/{msg}', 204, { fresh: ['msg'] }),
  E('GET', '/chats/{channel}/messages', 200, { list: true }),
  E('POST', '/chats/{channel}/messages', 201, json(() => ({ text: 'hi', type: 'text' }))),
  E('GET', '/chats/{channel}/members', 200, { list: true }),
  E('POST', '/chats/{channel}/members', 201, json(async (f) => ({ userId: await f.make.user() }))),
  E('DELETE', '/chats/{channel}/members/{member}', 204, { fresh: ['member'] }),
  // webhooks
  E('GET', '/webhooks', 200, { list: true }),
  E('POST', '/webhooks', 201, json(() => ({ name: 'H', url: 'http://127.0.0.1:9/x', events: ['user.created'], active: false }))),
  E('GET', '/webhooks/{hook}', 200),
  E('PUT', '/webhooks/{hook}', 200, json(() => ({ name: 'Hook' }))),
  E('PATCH', '/webhooks/{hook}', 200, json(() => ({ active: false }))),
  E('DELETE', '/webhooks/{hook}', 204, { fresh: ['hook'] }),
  E('GET', '/webhooks/{hook}/logs', 200, { list: true }),
  E('POST', '/webhooks/{hook}/test', 200),
  // scenarios
  E('GET', '/scenarios', 200, { list: true }),
  E('POST', '/scenarios', 201, json(() => ({ name: 'S', trigger: { type: 'manual' }, steps: [{ type: 'delay', ms: 0 }] }))),
  E('GET', '/scenarios/{scn}', 200),
  E('PUT', '/scenarios/{scn}', 200, json(() => ({ name: 'Scn' }))),
  E('PATCH', '/scenarios/{scn}', 200, json(() => ({ description: 'd' }))),
  E('DELETE', '/scenarios/{scn}', 204, { fresh: ['scn'] }),
  E('POST', '/scenarios/{scn}/activate', 200),
  E('POST', '/scenarios/{scn}/deactivate', 200),
  E('POST', '/scenarios/{scn}/run', 201),
  E('GET', '/scenarios/{scn}/executions', 200, { list: true }),
  // credentials
  E('GET', '/credentials', 200, { list: true }),
  E('POST', '/credentials', 201, json((f) => ({ name: `K${f.uniq()}`, type: 'api-key', value: 'v' }))),
  E('GET', '/credentials/{secret}', 200),
  E('PUT', '/credentials/{secret}', 200, json(() => ({ value: 'replaced' }))),
  E('PATCH', '/credentials/{secret}', 200, json(() => ({ description: 'd' }))),
  E('DELETE', '/credentials/{secret}', 204, { fresh: ['secret'] }),
  // console API (destructive calls aim at the scratch workspace)
  E('GET', '/workspaces', 200, { console: true }),
  E('POST', '/workspaces', 201, { console: true, ...json((f) => ({ _id: `w${f.uniq()}`, name: 'W', admin: { email: 'a@example.test', password: 'password-123' } })) }),
  E('DELETE', '/workspaces/{ws}', 204, { console: true, fresh: ['ws'] }),
  E('POST', '/workspaces/{scratch}/token', 200, { console: true }),
  E('GET', '/workspaces/{scratch}/export', 200, { console: true }),
  E('POST', '/workspaces/{scratch}/import', 200, { console: true, ...json(() => ({ format: 'homebase-dump', version: 1 })) }),
  E('POST', '/workspaces/{scratch}/reset', 200, { console: true, ...json(() => ({ keepSchema: true })) }),
  E('POST', '/workspaces/{scratch}/snapshots', 201, { console: true, ...json((f) => ({ name: `s${f.uniq()}` })) }),
  E('GET', '/workspaces/{scratch}/snapshots', 200, { console: true }),
  E('POST', '/workspaces/{scratch}/snapshots/{snap}/restore', 200, { console: true }),
  E('DELETE', '/workspaces/{scratch}/snapshots/{snap}', 204, { console: true, fresh: ['snap'] }),
  E('GET', '/workspaces/{scratch}/outbox', 200, { console: true, list: true }),
  E('GET', '/workspaces/{scratch}/requests', 200, { console: true, list: true }),
];

export const label = (e: Endpoint) => `${e.method} ${e.path}`;
export const placeholders = (e: Endpoint) => [...e.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
export const jsonBodied = (e: Endpoint) => e.body !== undefined;

/** What every answer must pass: no 5xx, no hang, the contract's error shape for 4xx, no stack
 *  trace or path; and, when given, one of the expected statuses. Returns what is wrong. */
export function problemsOf(res: Hit, expected?: number[]): string[] {
  const out: string[] = [];
  if (res.status === -1) return [`no answer (${res.text})`];
  if (res.status >= 500) out.push(`${res.status}`);
  if (expected && !expected.includes(res.status)) out.push(`status ${res.status}, expected ${expected.join('|')}`);
  if (res.status >= 400 && res.text !== '') {
    const b = res.body as { error?: Record<string, unknown> } | undefined;
    const e = b?.error;
    const shapeOk = b !== null && typeof b === 'object' && Object.keys(b).join() === 'error' && e !== null && typeof e === 'object'
      && typeof e.code === 'string' && typeof e.message === 'string'
      && Object.keys(e).every((k) => ['code', 'message', 'details'].includes(k))
      && (e.details === undefined || (typeof e.details === 'object' && e.details !== null))
      && (ERROR_STATUS as Record<string, number>)[e.code] === res.status;
    if (!shapeOk) out.push(`error shape: ${res.text.slice(0, 160)}`);
  }
  if (LEAK.test(res.text)) out.push(`leak: ${res.text.match(LEAK)![0]}`);
  // Hashes only ever leave inside a console export; a webhook secret only in its creation answer.
  const path = res.url ? new URL(res.url).pathname.replace(/\/+$/, '') : '';
  if (!path.endsWith('/export') && SECRET_LEAK.test(res.text)) out.push(`secret leak: ${res.text.match(SECRET_LEAK)![0]}`);
  if (res.text.includes('whsec_') && !(res.method === 'POST' && res.status === 201 && path.endsWith('/webhooks'))) out.push('secret leak: whsec_');
  return out.map((p) => `${res.status}: ${p}`);
}

/** A stack frame, a stack property, a source path of this machine or a module folder. */
const LEAK = /\n\s+at |\bat [\w.<>$]+ \(|"stack"|\/work\/|\/home\/|\/tmp\/|node_modules|[A-Z]:\\|\.[tj]s:\d+/;

/** Password, refresh and reset hashes, bcrypt strings, and the fixture secret's value. */
const SECRET_LEAK = /passwordHash|refreshHash|tokenHash|\$2[aby]\$\d\d\$|top-secret-value/;

// ---- hostile inputs --------------------------------------------------------------------------

export interface BodyCase {
  name: string;
  /** The raw body, or a function of the endpoint's valid body. */
  raw: string | ((valid: Record<string, unknown>) => string);
  contentType?: string;
  headers?: Record<string, string>;
  /** Expected statuses; absent: any answer that passes problemsOf. */
  expect?: number[];
}

const nest = (depth: number, leaf = '1') => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
const MiB = 1024 * 1024;
/** The valid body (an object or its JSON text) with one more raw `"key": value` member. */
const withField = (valid: Record<string, unknown> | string, key: string, rawValue: string) => {
  const base = typeof valid === 'string' ? valid : JSON.stringify(valid);
  return base === '{}' ? `{"${key}":${rawValue}}` : `${base.slice(0, -1)},"${key}":${rawValue}}`;
};
/** A string value sized so that the whole body is `size` bytes. */
const padTo = (valid: Record<string, unknown>, size: number) => {
  const head = withField(valid, 'pad', '""');
  return withField(valid, 'pad', JSON.stringify('x'.repeat(size - head.length)));
};

export const BODY_CASES: BodyCase[] = [
  { name: 'invalid JSON', raw: '{nope', expect: [400] },
  { name: 'truncated JSON', raw: '{"a": [1, 2', expect: [400] },
  { name: 'a JSON array', raw: '[1,2,3]', expect: [400] },
  { name: 'a JSON string', raw: '"text"', expect: [400] },
  { name: 'a JSON number', raw: '42', expect: [400] },
  { name: 'JSON null', raw: 'null', expect: [400] },
  { name: 'JSON true', raw: 'true', expect: [400] },
  { name: 'text/plain body', raw: 'hello', contentType: 'text/plain', expect: [415] },
  { name: 'form-urlencoded body', raw: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded', expect: [415] },
  { name: 'JSON under a text/plain type', raw: (v) => JSON.stringify(v), contentType: 'text/plain', expect: [415] },
  { name: 'latin1 charset', raw: '{}', contentType: 'application/json; charset=latin1', expect: [415] },
  { name: 'UTF-16 charset on UTF-8 bytes', raw: '{"a":1}', contentType: 'application/json; charset=utf-16', expect: [400] },
  { name: 'unknown Content-Encoding', raw: '{}', headers: { 'content-encoding': 'br-nope' }, expect: [415] },
  { name: 'gzip header on plain bytes', raw: '{}', headers: { 'content-encoding': 'gzip' }, expect: [400] },
  { name: 'empty body with a JSON type', raw: '' },
  { name: 'whitespace-only body', raw: '  \n ', expect: [400] },
  { name: 'BOM then JSON', raw: (v) => `\uFEFF${JSON.stringify(v)}` },
  { name: 'object nested 10,000 deep', raw: nest(10_000), expect: [400] },
  { name: 'a field nested 10,000 deep', raw: (v) => withField(v, 'deep', nest(10_000)), expect: [400] },
  { name: 'arrays nested 100,000 deep', raw: (v) => withField(v, 'deep', '['.repeat(100_000) + ']'.repeat(100_000)), expect: [400] },
  { name: 'a field nested 50 deep', raw: (v) => withField(v, 'deepish', nest(50)) },
  { name: 'body just under 1 MiB', raw: (v) => padTo(v, MiB - 1024) },
  { name: 'body just over 1 MiB', raw: (v) => padTo(v, MiB + 1024), expect: [413] },
  { name: 'body of 5 MiB', raw: (v) => padTo(v, 5 * MiB), expect: [413] },
  { name: '__proto__ key', raw: (v) => withField(v, '__proto__', '{"polluted":true}') },
  { name: '__proto__ only', raw: '{"__proto__":{"polluted":true}}' },
  { name: 'constructor.prototype key', raw: (v) => withField(v, 'constructor', '{"prototype":{"polluted":true}}') },
  { name: 'prototype key', raw: (v) => withField(v, 'prototype', '{"polluted":true}') },
  { name: 'nested __proto__', raw: (v) => withField(v, 'meta', '{"__proto__":{"polluted":true}}') },
  { name: 'key starting with $', raw: (v) => withField(v, '$where', '"1"') },
  { name: '$set key', raw: (v) => withField(v, '$set', '{"role":"admin"}') },
  { name: 'key with a dot', raw: (v) => withField(v, 'a.b', '1') },
  { name: 'nested key with $ and dots', raw: (v) => withField(v, 'meta', '{"$gt":"","x.y":1}') },
  { name: 'empty key', raw: (v) => withField(v, '', '1') },
  { name: 'NUL and odd unicode in values', raw: (v) => JSON.stringify(Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typeof x === 'string' ? `a\u0000b\u202e\uffff😀` : x]))) },
  { name: 'lone surrogate in values', raw: (v) => JSON.stringify(v).replace(/"([^"]*)"(?=[,}])/g, (m, s: string) => (s.startsWith('{') ? m : `"${s}\\ud800"`)) },
  { name: 'NUL in a key', raw: (v) => withField(v, 'a\\u0000b', '1'), expect: [422] },
  { name: 'duplicate keys', raw: (v) => withField(withField(v, 'dup', '1'), 'dup', '"two"') },
  { name: 'huge number', raw: (v) => withField(v, 'n', '1e999') },
];

/** Values of the wrong type, put in place of each field of a valid body. */
export const WRONG_VALUES: Array<[string, unknown]> = [
  ['a number', 12345], ['a negative float', -1.5], ['a string', 'str'], ['an empty string', ''], ['an object', { a: 1 }],
  ['an empty object', {}], ['an array', ['a', 1]], ['an empty array', []], ['null', null], ['true', true],
  ['a NUL string', '\u0000'], ['a long string', 'y'.repeat(100_000)], ['a huge number', 1e308], ['a fraction', 0.5],
  ['an object nested 40 deep', JSON.parse(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`)], ['a __proto__ object', JSON.parse('{"__proto__":{"polluted":true}}')],
];

export const ID_CASES: Array<[string, string]> = [
  ['a 10,000-char id', 'a'.repeat(10_000)],
  ['%00', '%00'],
  ['a%00b', 'a%00b'],
  ['..%2F..%2Fetc', '..%2F..%2Fetc'],
  // (a bare %2e%2e segment is resolved as `..` by the client's URL parser before it leaves)
  ['%2e%2e%2f%2e%2e', '%2e%2e%2f%2e%2e'],
  ['..%5C..%5Cwin', '..%5C..%5Cwin'],
  ['unicode', '%C3%A9t%C3%A9%F0%9F%98%80'],
  ['malformed percent', '%E0%A4%A'],
  ['bare percent', '%'],
  ['constructor', 'constructor'],
  ['__proto__', '__proto__'],
  ['prototype', 'prototype'],
  ['toString', 'toString'],
  ['hasOwnProperty', 'hasOwnProperty'],
  ['valueOf', 'valueOf'],
  ['$where', '$where'],
  ['a.b', 'a.b'],
  ['spaces', 'a%20b'],
  ['quote and angle brackets', '%22%3Cscript%3E'],
];

export interface QueryCase { name: string; query: string; expect?: number[] }

export const QUERY_CASES: QueryCase[] = [
  { name: 'limit=-1', query: 'limit=-1', expect: [400] },
  { name: 'limit=abc', query: 'limit=abc', expect: [400] },
  { name: 'limit=1e3', query: 'limit=1e3', expect: [400] },
  { name: 'limit=1.5', query: 'limit=1.5', expect: [400] },
  { name: 'limit=', query: 'limit=', expect: [400] },
  { name: 'limit=99999999999999999999', query: 'limit=99999999999999999999', expect: [200] },
  { name: 'limit=0', query: 'limit=0', expect: [200] },
  { name: 'limit twice', query: 'limit=1&limit=2', expect: [400] },
  { name: 'offset=-5', query: 'offset=-5', expect: [400] },
  { name: 'offset=99999999999999999999', query: 'offset=99999999999999999999', expect: [200] },
  { name: 'sort=', query: 'sort=', expect: [200] },
  { name: 'sort=-', query: 'sort=-', expect: [400] },
  { name: 'sort=$where', query: 'sort=$where', expect: [400] },
  { name: 'sort=__proto__', query: 'sort=__proto__', expect: [400] },
  { name: 'sort=constructor', query: 'sort=constructor', expect: [400] },
  { name: 'sort=a,,b', query: 'sort=a,,b', expect: [400] },
  { name: 'fields=__proto__', query: 'fields=__proto__', expect: [400] },
  { name: 'fields=constructor', query: 'fields=constructor', expect: [400] },
  { name: 'fields=a..b', query: 'fields=a..b', expect: [400] },
  { name: 'filter[a][$regex]=x', query: 'filter[a][$regex]=x', expect: [400] },
  { name: 'filter[a][$where]=x', query: 'filter[a][$where]=x', expect: [400] },
  { name: 'filter[a][$in]= (empty)', query: 'filter[a][$in]=', expect: [200] },
  { name: 'filter[a][$exists]=maybe', query: 'filter[a][$exists]=maybe', expect: [400] },
  { name: 'filter[__proto__]=x', query: 'filter[__proto__]=x', expect: [400] },
  { name: 'filter[constructor]=x', query: 'filter[constructor]=x', expect: [400] },
  { name: 'filter[a.__proto__.b]=x', query: 'filter[a.__proto__.b]=x', expect: [400] },
  { name: 'filter[a]=1&filter[a]=2', query: 'filter[a]=1&filter[a]=2', expect: [400] },
  { name: 'filter=oops', query: 'filter=oops', expect: [400] },
  { name: 'filter[]=x', query: 'filter[]=x', expect: [400] },
  { name: 'filter[a][b][c]=1', query: 'filter[a][b][c]=1', expect: [400] },
  { name: 'filter[$where]=1', query: 'filter[$where]=1', expect: [400] },
  { name: 'filter value with NUL', query: 'filter[a]=%00', expect: [400] },
  { name: 'malformed percent in a value', query: 'filter[a]=%E0%A4%A', expect: [200, 400] },
  { name: 'filter[toString][$exists]=true', query: 'filter[toString][$exists]=true', expect: [400] },
  { name: 'fields=a,valueOf', query: 'fields=a,valueOf', expect: [400] },
  { name: 'a filter value of 8 KiB (over the 1,000-character bound)', query: `filter[a]=${'x'.repeat(8 * 1024)}`, expect: [400] },
  { name: 'a long query string (8 KiB) of bounded parts', query: Array.from({ length: 8 }, (_, i) => `filter[f${i}]=${'x'.repeat(1000)}`).join('&'), expect: [200] },
  { name: 'many parameters', query: Array.from({ length: 2000 }, (_, i) => `p${i}=1`).join('&'), expect: [200] },
  { name: 'view= unknown', query: 'view=nope', expect: [200, 404] },
  { name: 'view= empty', query: 'view=', expect: [200, 400, 404] },
  { name: 'view repeated', query: 'view=a&view=b', expect: [200, 400] },
];

export interface HeaderCase { name: string; authorization: (f: Fixture) => string | Promise<string> }

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

export const HEADER_CASES: HeaderCase[] = [
  { name: 'no Authorization header', authorization: () => '' },
  { name: 'Bearer with no token', authorization: () => 'Bearer' },
  { name: 'Bearer and a space', authorization: () => 'Bearer ' },
  { name: 'Basic credentials', authorization: () => 'Basic YWRtaW46eA==' },
  { name: 'a garbage token', authorization: () => 'Bearer garbage.garbage.garbage' },
  { name: 'random text', authorization: () => 'nonsense' },
  { name: 'a JWT with alg none', authorization: () => `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'x', app: 'demo', role: 'admin', sid: 'x', iat: 1, exp: 9_999_999_999 })}.` },
  { name: 'two tokens', authorization: () => 'Bearer a b' },
  { name: 'a JWT signed with another key', authorization: () => `Bearer ${jwt.sign({ sub: 'x', app: 'demo', role: 'admin', sid: 'x' }, 'not-the-key', { algorithm: 'HS256' })}` },
  { name: 'a JWT of another workspace', authorization: (f) => `Bearer ${f.otherWorkspaceToken}` },
];

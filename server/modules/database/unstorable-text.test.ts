// Text that PostgreSQL's jsonb cannot hold (the NUL character U+0000, lone UTF-16 surrogates)
// gets one answer on both drivers (this file runs in the embedded and the PostgreSQL runs): a
// JSON body holding it, as a value or as a key, at any depth, on any endpoint of the robustness
// corpus, is 422 VALIDATION_ERROR naming the field with reason `invalid`, and nothing is stored; a
// list query holding it is 400 BAD_REQUEST. Well-formed unusual text (emoji, U+FFFF, bidi
// controls, a surrogate pair) is stored and returned unchanged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { buildFixture, hit, type Fixture, type Hit } from '../../test/robustness-fixture.js';
import { ENDPOINTS, jsonBodied, label, problemsOf, type Endpoint } from '../../test/robustness-cases.js';

let t: TestServer;
let f: Fixture;
beforeAll(async () => { t = await startTestServer(); f = await buildFixture(t); }, 60_000);
afterAll(async () => { await t?.close(); });

const fill = (e: Endpoint) => e.path.replace(/\{(\w+)\}/g, (_, k: string) => f.ids[k]);

async function send(e: Endpoint, raw: string | undefined, query = ''): Promise<Hit> {
  const headers: Record<string, string> = {};
  const token = e.console ? t.consoleToken : e.as === 'anonymous' ? null : e.as === 'fresh-user' ? (await t.user('Fresh')).token : t.adminToken;
  if (token) headers.authorization = `Bearer ${token}`;
  if (raw !== undefined) headers['content-type'] = 'application/json';
  return hit(`${e.console ? t.url : t.api}${fill(e)}${query}`, e.method, { headers, raw });
}

/** Paths of the string leaves of a body (`a.b`, `tags[1]`), in document order. */
function stringLeaves(v: unknown, path = ''): Array<{ path: string; keys: Array<string | number> }> {
  const out: Array<{ path: string; keys: Array<string | number> }> = [];
  const walk = (x: unknown, p: string, keys: Array<string | number>) => {
    if (typeof x === 'string') out.push({ path: p, keys });
    else if (Array.isArray(x)) x.forEach((y, i) => walk(y, `${p}[${i}]`, [...keys, i]));
    else if (x !== null && typeof x === 'object') for (const [k, y] of Object.entries(x)) walk(y, p ? `${p}.${k}` : k, [...keys, k]);
  };
  walk(v, path, []);
  return out;
}

function setAt(body: unknown, keys: Array<string | number>, value: unknown): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let at = copy;
  for (const k of keys.slice(0, -1)) at = at[k] as Record<string | number, unknown>;
  at[keys[keys.length - 1]] = value;
  return copy;
}

function expectInvalid(res: Hit, field: string, where: string): string[] {
  const problems = problemsOf(res, [422]).map((p) => `${where}: ${p}`);
  if (res.status === 422) {
    const d = res.body?.error?.details;
    if (d?.field !== field || d?.reason !== 'invalid') problems.push(`${where}: details ${JSON.stringify(d)}, expected field ${JSON.stringify(field)} reason invalid`);
  }
  return problems;
}

const BAD_VALUES: Array<[string, string]> = [['NUL', 'a\u0000b'], ['a lone high surrogate', 'a\ud800b'], ['a lone low surrogate', '\udc00']];

describe('unstorable text in JSON bodies', () => {
  const targets = ENDPOINTS.filter(jsonBodied);

  it('a key holding NUL or a lone surrogate: 422 invalid naming the key, on every JSON endpoint', async () => {
    const problems: string[] = [];
    for (const e of targets) {
      for (const [name, key, shown] of [['NUL', 'a\u0000b', 'a\\u0000b'], ['surrogate', 'x\udfff', 'x\\udfff']] as const) {
        const body = { ...((await e.body!(f)) as Record<string, unknown>), [key]: 1 };
        problems.push(...expectInvalid(await send(e, JSON.stringify(body)), shown, `${label(e)} [${name} key]`));
      }
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('a string value holding NUL or a lone surrogate, at each place a body has one: 422 invalid naming it', async () => {
    const problems: string[] = [];
    for (const e of targets) {
      for (const leaf of stringLeaves(await e.body!(f))) {
        for (const [name, value] of BAD_VALUES) {
          const body = setAt(await e.body!(f), leaf.keys, value);
          problems.push(...expectInvalid(await send(e, JSON.stringify(body)), leaf.path, `${label(e)} [${leaf.path}: ${name}]`));
        }
      }
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('names nested fields and array items, all at once, and stores nothing', async () => {
    expect((await t.req('POST', '/database', { body: { _id: 'texts', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
    const res = await t.req('POST', '/database/texts', { body: { title: 'ok', meta: { note: 'x\u0000', tags: ['fine', 'y\ud800'] } } });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'meta.note', reason: 'invalid' } });
    expect(res.body.error.details.errors.map((x: { field: string }) => x.field)).toEqual(['meta.note', 'meta.tags[1]']);
    expect((await t.req('GET', '/database/texts?limit=0')).body.meta.total).toBe(0);

    const rec = await t.req('POST', '/database/texts', { body: { _id: 'r1', title: 'ok' } });
    expect(rec.status).toBe(201);
    for (const method of ['PUT', 'PATCH']) {
      const change = await t.req(method, '/database/texts/r1', { body: { title: 'bad\u0000' } });
      expect(change.status, method).toBe(422);
    }
    expect((await t.req('GET', '/database/texts/r1')).body.title).toBe('ok');
  });

  it('well-formed unusual text is stored and returned unchanged', async () => {
    const odd = 'a\u202eb\uffff😀 \u00e9\u0001\u001f';
    const res = await t.req('POST', '/database/texts', { body: { _id: 'odd', title: odd, [`k😀\u202e`]: odd } });
    expect(res.status, res.text).toBe(201);
    const back = await t.req('GET', '/database/texts/odd');
    expect(back.body.title).toBe(odd);
    expect(back.body[`k😀\u202e`]).toBe(odd);
    const found = await t.req('GET', `/database/texts?filter[title]=${encodeURIComponent(odd)}`);
    expect(found.body.data.map((d: { _id: string }) => d._id)).toEqual(['odd']);
  });
});

describe('unstorable text in list queries', () => {
  it('a filter value or parameter name holding NUL or a lone surrogate: 400 on every list endpoint', async () => {
    const problems: string[] = [];
    for (const e of ENDPOINTS.filter((x) => x.list)) {
      for (const q of ['?filter[a]=%00', '?filter[a][$ne]=x%00', '?filter[a%00b]=1', '?sort=a%00']) {
        const res = await send(e, undefined, q);
        problems.push(...problemsOf(res, [400]).map((p) => `${label(e)} ${q}: ${p}`));
      }
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });
});

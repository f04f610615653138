// `http` steps against a real receiver: whatever a remote server answers (keys the store
// refuses, deep nesting, a secret echoed back in any form) the execution is stored, ends
// `succeeded` or `failed`, and never shows a secret value.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { clearBetweenTests, startReceiver, waitFor, type Receiver } from '../../test/receiver.js';

const TOKEN = 'tok_HttpSteps_secret_4711';
const PIN = '987654321';
const WEIRD = 'p@ss w/ord+"q"é&x=1';

let t: TestServer;
let rx: Receiver;
beforeAll(async () => {
  t = await startTestServer();
  rx = await startReceiver();
  for (const [name, value] of [['API_TOKEN', TOKEN], ['PIN', PIN], ['WEIRD', WEIRD]]) {
    expect((await t.req('POST', '/credentials', { body: { name, value } })).status).toBe(201);
  }
});
afterAll(async () => { await t.close(); await rx.close(); });
afterEach(() => clearBetweenTests(t, rx, 'scenarios'));

async function scenario(steps: unknown[]): Promise<string> {
  const created = await t.req('POST', '/scenarios', { body: { name: 'http', trigger: { type: 'manual' }, steps } });
  expect(created.status, created.text).toBe(201);
  return created.body._id as string;
}

/** Every form in which a secret could leak, as the tests send them. */
const LEAKS = [TOKEN, PIN, WEIRD, encodeURIComponent(WEIRD), 'p@ss%20w/ord+%22q%22%C3%A9&x=1', JSON.stringify(WEIRD).slice(1, -1)];
function expectNoSecret(text: string) {
  for (const leak of LEAKS) expect(text, `shows ${leak}`).not.toContain(leak);
}

async function onlyExecution(id: string) {
  const list = await t.req('GET', `/scenarios/${id}/executions`);
  expect(list.status).toBe(200);
  expectNoSecret(list.text);
  expect(list.body.data).toHaveLength(1);
  return list.body.data[0];
}

describe('http step outputs the store would refuse', () => {
  it('stores keys starting with $ or holding a dot (body and headers) in an encoded form', async () => {
    rx.respond = () => ({
      status: 200, contentType: 'application/json',
      headers: { 'x.trace': 'abc', $h: 'dollar' },
      body: JSON.stringify({ $schema: 'https://json-schema.org/x', $ref: '#/a', '@odata.context': 'ctx', 'a.b': { $$date: 5, 'c.d': [{ $in: 1 }] }, ok: true }),
    });
    const id = await scenario([
      { type: 'http', url: `${rx.url}/schema`, headers: { authorization: 'Bearer {{secrets.API_TOKEN}}' } },
      { type: 'http', method: 'POST', url: `${rx.url}/next`, body: { seen: '{{steps.0.output.body.ok}}' } },
    ]);
    const run = await t.req('POST', `/scenarios/${id}/run`);
    expect(run.status).toBe(201);
    expectNoSecret(run.text);
    expect(run.body.status, run.text).toBe('succeeded');
    expect(run.body.steps.map((s: { status: string }) => s.status)).toEqual(['succeeded', 'succeeded']);
    const out = run.body.steps[0].output;
    expect(out.body).toEqual({
      '＄schema': 'https://json-schema.org/x', '＄ref': '#/a', '@odata．context': 'ctx', 'a．b': { '＄$date': 5, 'c．d': [{ '＄in': 1 }] }, ok: true,
    });
    expect(out.headers).toMatchObject({ 'x．trace': 'abc', '＄h': 'dollar' });
    expect(out.request.headers.authorization).toBe('Bearer ***');
    // Later steps see the answer as it came (the encoding is only how the execution stores it).
    expect(JSON.parse(rx.received[1].body)).toEqual({ seen: true });
    expect(await onlyExecution(id)).toEqual(run.body);
  });

  it('stores a failing step whose answer has such keys once, as failed', async () => {
    rx.respond = () => ({ status: 422, contentType: 'application/problem+json', body: JSON.stringify({ $error: 'bad', 'field.name': 'x' }) });
    const id = await scenario([{ type: 'http', url: `${rx.url}/bad` }, { type: 'delay', ms: 1 }]);
    const run = await t.req('POST', `/scenarios/${id}/run`);
    expect(run.body).toMatchObject({
      status: 'failed', error: expect.stringContaining('HTTP 422'),
      steps: [{ status: 'failed', output: { status: 422, body: { '＄error': 'bad', 'field．name': 'x' } } }, { status: 'skipped' }],
    });
    expect(await onlyExecution(id)).toEqual(run.body);
  });

  it('stores deeply nested answers, deep parts as their JSON text, at once', async () => {
    // Nested arrays made the store's key check double its work at each level (40 levels: hours);
    // the test's time limit catches a return of that.
    for (const depth of [40, 20_000]) {
      rx.respond = () => ({ status: 200, contentType: 'application/json', body: `${'['.repeat(depth)}"${TOKEN}"${']'.repeat(depth)}` });
      const id = await scenario([{ type: 'http', url: `${rx.url}/deep` }]);
      const run = await t.req('POST', `/scenarios/${id}/run`);
      expectNoSecret(run.text);
      expect(run.body.status, run.text.slice(0, 300)).toBe('succeeded');
      const inner = run.body.steps[0].output.body[0][0][0][0][0];
      expect(typeof inner).toBe('string');
      if (depth === 40) expect(inner).toBe(`${'['.repeat(35)}"***"${']'.repeat(35)}`);
      expect((await onlyExecution(id)).status).toBe('succeeded');
      await t.req('DELETE', `/scenarios/${id}`);
    }
  });

  it('stores objects nested past 64 levels as their JSON text', async () => {
    let body = `{"token":"${TOKEN}"}`;
    for (let i = 0; i < 100; i++) body = `{"$k${i}":${body}}`;
    rx.respond = () => ({ status: 200, contentType: 'application/json', body });
    const id = await scenario([{ type: 'http', url: `${rx.url}/deep-objects` }]);
    const run = await t.req('POST', `/scenarios/${id}/run`);
    expectNoSecret(run.text);
    expect(run.body.status).toBe('succeeded');
    let v = run.body.steps[0].output.body;
    for (let i = 99; typeof v === 'object'; i--) v = v[`＄k${i}`];
    expect(v).toMatch(/^\{"\$k\d+":.*"token":"\*\*\*"\}+$/);
    expect((await onlyExecution(id)).status).toBe('succeeded');
  });
});

describe('an execution whose document cannot be stored', () => {
  it('still ends failed, saying why, with secrets masked in the answer and the store', async () => {
    const store = await t.srv.ctx.registry.require(t.workspace).store('scenario_executions');
    const original = store.replace.bind(store);
    let failures = 3; // the progress saves after steps 0 and 1, then the end
    store.replace = async (id, doc) => {
      if (failures-- > 0) throw new Error(`store refused it (${TOKEN})`);
      return original(id, doc);
    };
    try {
      const id = await scenario([
        { type: 'http', url: `${rx.url}/a`, headers: { authorization: 'Bearer {{secrets.API_TOKEN}}' } },
        { type: 'delay', ms: 1 },
      ]);
      const run = await t.req('POST', `/scenarios/${id}/run`);
      expect(run.status).toBe(201);
      expectNoSecret(run.text);
      expect(run.body).toMatchObject({
        status: 'failed', error: "Could not store this execution's result: store refused it (***)",
        steps: [{ status: 'succeeded', output: { request: { headers: { authorization: 'Bearer ***' } } } }, { status: 'succeeded' }],
      });
      expect(run.body.steps).toHaveLength(2);
      expect(await onlyExecution(id)).toEqual(run.body);
    } finally {
      store.replace = original;
    }
  });
});

describe('http step transport', () => {
  it('reaches a port fetch refuses (6667), sends a user-agent, and does not follow redirects', async (ctx) => {
    let bad: Receiver;
    try {
      bad = await startReceiver({ port: 6667 });
    } catch (err) {
      if ((err as { code?: string }).code === 'EADDRINUSE') { ctx.skip(); return; }
      throw err;
    }
    try {
      bad.respond = (r) => (r.url === '/moved' ? { status: 301, headers: { location: '/there' } } : { status: 200, body: r.body });
      const id = await scenario([
        { type: 'http', method: 'PUT', url: `${bad.url}/echo`, body: 'plain text' },
        { type: 'http', url: `${bad.url}/moved` },
      ]);
      const run = await t.req('POST', `/scenarios/${id}/run`);
      expect(run.body).toMatchObject({
        status: 'failed', error: expect.stringContaining('HTTP 301'),
        steps: [
          { status: 'succeeded', output: { status: 200, body: 'plain text', request: { headers: { 'content-type': 'text/plain;charset=UTF-8' } } } },
          { status: 'failed', output: { status: 301, headers: { location: '/there' } } },
        ],
      });
      expect(bad.received.map((r) => r.url)).toEqual(['/echo', '/moved']);
      expect(bad.received[0].headers['user-agent']).toMatch(/^Homebase-Scenarios\//);
    } finally {
      await bad.close();
    }
  });
});

describe('masking what a receiver echoes', () => {
  it('masks numbers equal to a secret and URL-serialised forms of a secret', async () => {
    rx.respond = (r) => ({
      status: 200, contentType: 'application/json', headers: { 'x-echo-url': r.url },
      body: JSON.stringify({ url: r.url, decoded: decodeURIComponent(r.url), form: new URLSearchParams({ v: WEIRD }).toString(), sent: JSON.parse(r.body || 'null') }),
    });
    const id = await scenario([
      {
        type: 'http', method: 'POST', url: `${rx.url}/echo/{{secrets.WEIRD}}?q={{secrets.WEIRD}}&pin={{secrets.PIN}}`,
        headers: { 'content-type': 'application/json' }, body: '{"n": {{secrets.PIN}}, "flag": true}',
      },
    ]);
    const run = await t.req('POST', `/scenarios/${id}/run`);
    expect(run.body.status, run.text).toBe('succeeded');
    // The receiver did get the serialised forms (so the test means something).
    expect(rx.received[0].url).toContain('p@ss%20w/ord+%22q%22%C3%A9&x=1');
    expect(JSON.parse(rx.received[0].body)).toEqual({ n: 987654321, flag: true });
    expectNoSecret(run.text);
    const body = run.body.steps[0].output.body;
    expect(body.sent).toEqual({ n: '***', flag: true });
    expect(body.url).toBe('/echo/***?q=***&pin=***');
    expect(body.decoded).toBe('/echo/***?q=***&pin=***');
    expect(body.form).toBe('v=***');
    expect(run.body.steps[0].output.request.url).toBe(`${rx.url}/echo/***?q=***&pin=***`);
    await waitFor(async () => (await onlyExecution(id)).status === 'succeeded');
  });
});

describe('masking before cutting, and the forms a secret takes on its way out', () => {
  const LIMIT = 64 * 1024;
  const HOST = 'Secret-Host-Label-77';
  const IDN = 'Sécret-Hôte';
  beforeAll(async () => {
    for (const [name, value] of [['HOST', HOST], ['IDN', IDN]]) {
      expect((await t.req('POST', '/credentials', { body: { name, value } })).status).toBe(201);
    }
  });

  async function runOnce(steps: unknown[]) {
    const id = await scenario(steps);
    const run = await t.req('POST', `/scenarios/${id}/run`);
    expect(run.status).toBe(201);
    expect(run.text).not.toContain(TOKEN.slice(0, 6)); // not even the secret's start
    expectNoSecret(run.text);
    await waitFor(async () => (await onlyExecution(id)).status !== 'running');
    return run.body;
  }

  it('a secret crossing the 64 KiB cut leaves nothing of itself', async () => {
    const pad = 'a'.repeat(LIMIT - 6);
    rx.respond = () => ({ status: 200, contentType: 'text/plain', body: `${pad}${TOKEN} and more after it` });
    const run = await runOnce([{ type: 'http', url: `${rx.url}/long`, headers: { authorization: 'Bearer {{secrets.API_TOKEN}}' } }]);
    expect(run.status, JSON.stringify(run.steps[0].error)).toBe('succeeded');
    const body = run.steps[0].output.body as string;
    expect(body.startsWith(`${pad}***`)).toBe(true);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(LIMIT);
  });

  it('a secret repeated past the cut (masking shrinks the text) leaves no partial copy at the end', async () => {
    rx.respond = () => ({ status: 200, contentType: 'text/plain', body: TOKEN.toUpperCase().repeat(8000) });
    const run = await runOnce([{ type: 'http', url: `${rx.url}/repeat` }]);
    expect(run.steps[0].output.body).toMatch(/^(\*\*\*)+$/);
  });

  it('masks forms whatever their letter case (a lower-cased secret, lower-case percent escapes)', async () => {
    rx.respond = () => ({
      status: 200, contentType: 'application/json',
      body: JSON.stringify({ lower: TOKEN.toLowerCase(), upper: TOKEN.toUpperCase(), escaped: encodeURIComponent(WEIRD).toLowerCase() }),
    });
    const run = await runOnce([{ type: 'http', url: `${rx.url}/case` }]);
    expect(run.steps[0].output.body).toEqual({ lower: '***', upper: '***', escaped: '***' });
  });

  it('a secret used in a URL host is masked in the error text, lower-cased or punycoded', async () => {
    const lowered = await runOnce([{ type: 'http', url: 'http://{{secrets.HOST}}.invalid/' }]);
    expect(lowered.status).toBe('failed');
    expect(lowered.error).toContain('***');
    const text = JSON.stringify(lowered);
    expect(text.toLowerCase()).not.toContain(HOST.toLowerCase());

    const idn = await runOnce([{ type: 'http', url: 'http://{{secrets.IDN}}.invalid/' }]);
    expect(idn.status).toBe('failed');
    const idnText = JSON.stringify(idn);
    const punycoded = new URL(`http://${IDN}.invalid/`).hostname.split('.')[0];
    expect(punycoded).toMatch(/^xn--/);
    expect(idnText).not.toContain(punycoded);
    expect(idnText.toLowerCase()).not.toContain(IDN.toLowerCase());
    expect(idn.error).toContain('***');
  });
});

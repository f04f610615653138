// Requests of one kind keep one hidden class (server/express/request-shape.ts): checked with V8's own
// %HaveSameMap in a child process (the flag it needs cannot be turned on inside a test worker).
// Without declareFieldsFirst every request ends with a hidden class of its own.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import express from 'express';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { declareFields } from '../express/request-shape.js';
import { REQUEST_LOG } from '../core/http.js';

const run = promisify(execFile);

describe('request shape', () => {
  it('gives repeated requests of one kind the same hidden class, on the fast path and routed ones', async () => {
    const { stdout } = await run(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', join(import.meta.dirname, 'request-shape.fixture.ts')],
      { cwd: join(import.meta.dirname, '..', '..'), env: { ...process.env, HOMEBASE_TEST_DRIVER: 'embedded' }, timeout: 60_000 });
    const result = JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, { req: boolean; res: boolean; fast: boolean }>;
    expect(Object.keys(result)).toHaveLength(4);
    // same hidden class as the request before, and not a slow (dictionary) one
    for (const [kind, same] of Object.entries(result)) expect(same, kind).toEqual({ req: true, res: true, fast: true });
  }, 90_000);

  it('declares only data properties, none that Express defines on its request or response', () => {
    const app = express();
    const req = new IncomingMessage(new Socket());
    const res = new ServerResponse(req);
    const before = { req: new Set(Reflect.ownKeys(req)), res: new Set(Reflect.ownKeys(res)) };
    declareFields(req, res);
    const added = { req: Reflect.ownKeys(req).filter((k) => !before.req.has(k)), res: Reflect.ownKeys(res).filter((k) => !before.res.has(k)) };
    expect(added.req).toEqual(expect.arrayContaining(['ws', 'auth', 'params', 'body']));
    expect(added.res).toEqual(expect.arrayContaining(['locals', REQUEST_LOG]));
    // Each is undefined and unknown to Express's prototypes, or an inherited default of Node's
    // made own with the same value (Express's prototypes inherit Node's).
    const inherited = (o: object, key: PropertyKey) => Reflect.get(Object.getPrototypeOf(o) as object, key);
    const check = (o: object, proto: object, key: PropertyKey) => {
      const value = Reflect.get(o, key);
      if (value === undefined && !(key in proto)) return;
      expect(value, `${String(key)} is not Node's default`).toBe(inherited(o, key));
      expect(Object.prototype.hasOwnProperty.call(proto, key), `${String(key)} is Express's own`).toBe(false);
    };
    for (const key of added.req) check(req, app.request, key);
    for (const key of added.res) check(res, app.response, key);
  });
});

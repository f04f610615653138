// Run by request-shape.test.ts as `node --allow-natives-syntax --import tsx` (V8's %HaveSameMap
// is only reachable with that flag): requests of one kind must end with one hidden class, the
// one they shared with the requests before them (server/express/request-shape.ts says why). Prints JSON.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startTestServer } from './harness.js';
import { makeCollection, v2Client } from '../v2/v2-client.js';

// eslint-disable-next-line @typescript-eslint/no-implied-eval
const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
// eslint-disable-next-line @typescript-eslint/no-implied-eval
const fast = new Function('a', 'return %HasFastProperties(a)') as (a: object) => boolean;

const t = await startTestServer();
const v2 = v2Client(t);
const seen: Array<{ req: IncomingMessage; res: ServerResponse }> = [];
t.srv.server.on('request', (req: IncomingMessage, res: ServerResponse) => res.on('finish', () => seen.push({ req, res })));
await makeCollection(t, 'people', [{ _id: 'name', name: 'Name', type: 'string' }, { _id: 'age', name: 'Age', type: 'integer' }]);
const made = await t.req('POST', '/database/people', { body: { name: 'Ada', age: 36 } });
if (made.status !== 201) throw new Error(`record: ${made.status} ${made.text}`);
const kinds: Record<string, () => Promise<{ status: number; text: string }>> = {
  'record GET (fast path)': () => t.req('GET', `/database/people/${made.body._id}`),
  // v2's, with its rate limit on (the server's default) and no compression asked for.
  'v2 record GET (fast path)': () => v2('GET', `/database/people/${made.body._id}`, { headers: { 'accept-encoding': 'identity' } }),
  'record list (routed)': () => t.req('GET', '/database/people?limit=5'),
  'record update (routed, JSON body)': () => t.req('PATCH', `/database/people/${made.body._id}`, { body: { age: 37 } }),
};
const out: Record<string, { req: boolean; res: boolean; fast: boolean }> = {};
for (const [kind, send] of Object.entries(kinds)) {
  const objects = [];
  for (let i = 0; i < 4; i++) {
    seen.length = 0;
    const answer = await send();
    if (answer.status !== 200) throw new Error(`${kind}: ${answer.status} ${answer.text}`); // the success path is the one measured
    objects.push(seen[0]);
  }
  const [, , a, b] = objects;
  out[kind] = { req: sameMap(a.req, b.req), res: sameMap(a.res, b.res), fast: fast(a.req) && fast(a.res) };
}
await t.close();
console.log(JSON.stringify(out));

// `POST /scenarios/{id}/run` with a sample event: an event-triggered scenario run by hand sees
// `{{event...}}` as the trigger would have given it, instead of an empty event.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { clearBetweenTests, startReceiver, type Receiver } from '../../test/receiver.js';

let t: TestServer;
let rx: Receiver;
beforeAll(async () => {
  t = await startTestServer();
  rx = await startReceiver();
  expect((await t.req('POST', '/database', { body: { _id: 'books', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
});
afterAll(async () => { await t.close(); await rx.close(); });
afterEach(() => clearBetweenTests(t, rx, 'scenarios'));

async function eventScenario() {
  const created = await t.req('POST', '/scenarios', { body: {
    name: 'Announce', trigger: { type: 'event', events: ['record.created'], filter: { collection: 'books' } },
    steps: [{ type: 'http', method: 'POST', url: `${rx.url}/hook`, body: { text: 'New book: {{event.data.title}} by {{event.data.author}}', kind: '{{event.type}}', in: '{{event.collection}}' } }],
  } });
  expect(created.status, created.text).toBe(201);
  return created.body._id as string;
}

describe('running a scenario with a sample event', () => {
  it('gives the steps the event sent with the run', async () => {
    const id = await eventScenario();
    const run = await t.req('POST', `/scenarios/${id}/run`, { body: { event: { type: 'record.created', collection: 'books', data: { _id: 'b1', title: 'Dune', author: 'Herbert' } } } });
    expect(run.status, run.text).toBe(201);
    expect(run.body).toMatchObject({ status: 'succeeded', trigger: { type: 'manual', sample: true } });
    expect(JSON.parse(rx.received.at(-1)!.body)).toEqual({ text: 'New book: Dune by Herbert', kind: 'record.created', in: 'books' });
  });

  it('runs without a body as before, and refuses an event that is not an object', async () => {
    const id = await eventScenario();
    const plain = await t.req('POST', `/scenarios/${id}/run`);
    expect(plain.status, plain.text).toBe(201);
    expect(plain.body.trigger).toMatchObject({ type: 'manual' });
    for (const event of ['text', 5, ['a']]) {
      const bad = await t.req('POST', `/scenarios/${id}/run`, { body: { event } });
      expect(bad.status, JSON.stringify(event)).toBe(422);
      expect(bad.body.error.details).toMatchObject({ field: 'event' });
    }
    const badData = await t.req('POST', `/scenarios/${id}/run`, { body: { event: { type: 'record.created', data: 'x' } } });
    expect(badData.status).toBe(422);
    expect(badData.body.error.details.field).toBe('event.data');
  });
});

// Scenarios and webhooks across restarts, snapshot restores, exports and workspace deletion.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, tempDataDir, type TestServer } from '../../test/harness.js';
import { startReceiver, waitFor, type Receiver } from '../../test/receiver.js';
import { startMetronome } from '../../test/metronome.js';

const SECRET = 'pw_lifecycle_SECRET_987';

let rx: Receiver;
beforeAll(async () => { rx = await startReceiver(); });
afterAll(async () => { await rx.close(); });

const executions = async (t: TestServer, id: string) => (await t.req('GET', `/scenarios/${id}/executions?limit=100`)).body.data as Array<Record<string, any>>;

describe('scenario lifecycle', () => {
  it('marks executions cut by a shutdown as failed, and resumes schedules after a restart', async () => {
    const data = tempDataDir();
    let t = await startTestServer({ data: data.dir });
    try {
      await t.req('POST', '/database', { body: { _id: 'jobs', setting: { read: 'private', write: 'private', update: 'private' } } });
      const slow = (await t.req('POST', '/scenarios', { body: {
        name: 'Slow', trigger: { type: 'event', events: ['record.created'] }, steps: [{ type: 'delay', ms: 60_000 }, { type: 'http', url: `${rx.url}/never` }],
      } })).body._id;
      expect((await t.req('POST', `/scenarios/${slow}/activate`)).status).toBe(200);
      const tick = (await t.req('POST', '/scenarios', { body: { name: 'Tick', trigger: { type: 'schedule', cron: '* * * * * *' }, steps: [{ type: 'http', url: `${rx.url}/tick` }] } })).body._id;
      expect((await t.req('POST', `/scenarios/${tick}/activate`)).status).toBe(200);
      await t.req('POST', '/database/jobs', { body: { n: 1 } });
      await waitFor(async () => (await executions(t, slow)).length === 1);
      await t.close();

      rx.received.length = 0;
      t = await startTestServer({ data: data.dir });
      const [cut] = await executions(t, slow);
      expect(cut).toMatchObject({ status: 'failed', steps: [{ type: 'delay', status: 'failed' }, { type: 'http', status: 'skipped' }] });
      expect(cut.error).toMatch(/shutting down/);
      await waitFor(() => rx.received.some((r) => r.url === '/tick'), 5000, 'a scheduled run after the restart');
      expect(rx.received.some((r) => r.url === '/never')).toBe(false);
    } finally {
      await t.close();
      data.remove();
    }
  });

  it('re-reads schedules when a snapshot is restored', async () => {
    const t = await startTestServer();
    try {
      const id = (await t.req('POST', '/scenarios', { body: { name: 'Snap', trigger: { type: 'schedule', cron: '* * * * * *' }, steps: [{ type: 'http', url: `${rx.url}/snap` }] } })).body._id;
      expect((await t.req('POST', `/scenarios/${id}/activate`)).status).toBe(200);
      expect((await t.consoleReq('POST', `/workspaces/${t.workspace}/snapshots`, { name: 'on' })).status).toBeLessThan(300);
      // The metronome beats in a second workspace of this server, which the restore and the
      // reset below leave alone.
      expect((await t.consoleReq('POST', '/workspaces', { _id: 'beat', admin: { email: 'b@example.com', password: 'beat-password' } })).status).toBe(201);
      const metronome = await startMetronome(`${t.url}/app/beat`, (await t.consoleReq('POST', '/workspaces/beat/token')).body.token, rx);
      expect((await t.req('POST', `/scenarios/${id}/deactivate`)).status).toBe(200);
      await metronome.waitBeats(1);
      const before = rx.received.filter((r) => r.url === '/snap').length;
      await metronome.waitBeats(2);
      expect(rx.received.filter((r) => r.url === '/snap').length).toBe(before);
      expect((await t.consoleReq('POST', `/workspaces/${t.workspace}/snapshots/on/restore`)).status).toBeLessThan(300);
      expect((await t.req('GET', `/scenarios/${id}`)).body.active).toBe(true);
      await waitFor(() => rx.received.filter((r) => r.url === '/snap').length > before, 5000, 'the restored schedule');
      // A reset wipes scenarios: the schedule stops.
      expect((await t.consoleReq('POST', `/workspaces/${t.workspace}/reset`, {})).status).toBeLessThan(300);
      await metronome.waitBeats(1);
      const afterReset = rx.received.filter((r) => r.url === '/snap').length;
      await metronome.waitBeats(2);
      expect(rx.received.filter((r) => r.url === '/snap').length).toBe(afterReset);
    } finally {
      await t.close();
    }
  });

  it('stops schedules of a deleted workspace', async () => {
    const t = await startTestServer();
    try {
      expect((await t.consoleReq('POST', '/workspaces', { _id: 'other', admin: { email: 'o@example.com', password: 'other-password' } })).status).toBe(201);
      const token = (await t.consoleReq('POST', '/workspaces/other/token')).body.token;
      const api = `${t.url}/app/other`;
      const post = (path: string, body: unknown) => fetch(`${api}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
      const s = await post('/scenarios', { name: 'Other', trigger: { type: 'schedule', cron: '* * * * * *' }, steps: [{ type: 'http', url: `${rx.url}/other` }] });
      await post(`/scenarios/${s._id}/activate`, {});
      await waitFor(() => rx.received.some((r) => r.url === '/other'), 5000);
      const metronome = await startMetronome(t.api, t.adminToken, rx);
      expect((await t.consoleReq('DELETE', '/workspaces/other')).status).toBe(204);
      await metronome.waitBeats(1);
      const count = rx.received.filter((r) => r.url === '/other').length;
      await metronome.waitBeats(2);
      expect(rx.received.filter((r) => r.url === '/other').length).toBe(count);
    } finally {
      await t.close();
    }
  });

  it('never exports a secret value or a webhook signing secret', async () => {
    const t = await startTestServer();
    try {
      await t.req('POST', '/credentials', { body: { name: 'PW', value: SECRET } });
      const hook = (await t.req('POST', '/webhooks', { body: { name: 'h', url: rx.url, events: ['*'] } })).body;
      const s = (await t.req('POST', '/scenarios', { body: { name: 'Uses', steps: [{ type: 'http', url: `${rx.url}/x`, headers: { 'x-pw': '{{secrets.PW}}' } }] } })).body;
      expect((await t.req('POST', `/scenarios/${s._id}/run`)).body.status).toBe('succeeded');
      const dump = await t.consoleReq('GET', `/workspaces/${t.workspace}/export`);
      expect(dump.status).toBe(200);
      expect(dump.text).toContain('PW');
      for (const hidden of [SECRET, hook.secret, hook.secret.slice(6), 'sealed']) expect(dump.text).not.toContain(hidden);
    } finally {
      await t.close();
    }
  });
});

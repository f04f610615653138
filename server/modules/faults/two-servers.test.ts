// Two servers on one PostgreSQL database share a workspace's faults: rules set through one apply
// to requests through the other, and a realtime rule drops the sockets of both.
import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVER, type TestServer } from '../../test/harness.js';
import { useTwoServers } from '../../test/two-servers.js';
import { waitFor } from '../../test/receiver.js';
import { TestSocket, realtimeUrl } from '../realtime/test-socket.js';

describe.skipIf(TEST_DRIVER !== 'postgres')('faults across two servers on one database', () => {
  let a: TestServer;
  let b: TestServer;
  const pair = useTwoServers('faults');

  beforeAll(() => { ({ a, b } = pair); });

  it('rules set through one server apply to requests through the other, and clear from both', async () => {
    const set = await a.consoleReq('PUT', '/workspaces/demo/faults', { rules: [{ match: { path: '/database' }, status: 502 }] });
    expect(set.status).toBe(200);
    expect((await a.req('GET', '/database')).status).toBe(502);
    await waitFor(async () => (await b.req('GET', '/database')).status === 502, 5000, 'the fault on the second server');
    const answered = await b.req('GET', '/database');
    expect(answered.body.error.code).toBe('INJECTED_FAULT');
    expect((await b.consoleReq('DELETE', '/workspaces/demo/faults')).status).toBe(204);
    await waitFor(async () => (await a.req('GET', '/database')).status === 200, 5000, 'the faults cleared on the first server');
  });

  it('a realtime rule set through one server drops the sockets of the other', async () => {
    const socket = await TestSocket.open(realtimeUrl(b.api, b.adminToken));
    expect((await a.consoleReq('PUT', '/workspaces/demo/faults', { rules: [{ match: { realtime: true }, drop: true, times: 1 }] })).status).toBe(200);
    expect((await socket.waitClose()).code).toBe(1006);
    await a.consoleReq('DELETE', '/workspaces/demo/faults');
  });
});

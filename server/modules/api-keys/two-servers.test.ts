// Two servers on one PostgreSQL database share a workspace's API keys: a key made through one
// works on the other, and a revocation through one is a 401 on the other's very next request.
import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVER, type TestServer } from '../../test/harness.js';
import { useTwoServers } from '../../test/two-servers.js';
import { v2Client } from '../../v2/v2-client.js';

describe.skipIf(TEST_DRIVER !== 'postgres')('API keys across two servers on one database', () => {
  let a: TestServer;
  let b: TestServer;
  const pair = useTwoServers('keys');

  beforeAll(() => { ({ a, b } = pair); });

  it('a key made through one server works on the other, and its revocation holds there at once', async () => {
    expect((await a.req('POST', '/database', { body: { _id: 'notes', setting: { read: 'private', write: 'private', update: 'private' } } })).status).toBe(201);
    const made = await v2Client(a)('POST', '/api-keys', { body: { name: 'shared', scopes: ['database:read', 'database:write'] } });
    expect(made.status).toBe(201);
    const { key, _id, principalId } = made.body.data;
    const headers = { 'x-api-key': key };
    const created = await b.req('POST', '/database/notes', { token: null, headers, body: { title: 'from b' } });
    expect(created.status).toBe(201);
    expect(created.body._owner).toBe(principalId);
    expect((await b.req('GET', '/database/notes', { token: null, headers })).status).toBe(200);

    expect((await v2Client(a)('DELETE', `/api-keys/${_id}`)).status).toBe(204);
    const after = await b.req('GET', '/database/notes', { token: null, headers });
    expect(after.status).toBe(401);
    expect((await a.req('GET', '/database/notes', { token: null, headers })).status).toBe(401);
  });
});

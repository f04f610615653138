// Chats: a channel created in the console, a member added with the user picker, messages both
// ways between the page and a real `ws` client signed in as that member, edit and delete of the
// console's own message, "act as" the member, rename and delete the channel; then the page's
// socket reconnecting by itself after its server restarts (a server of the test's own).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { test, expect, expectAccessible, type Workspace } from './fixtures';

interface Frame { type: string; topic?: string; event?: string; data?: Record<string, any>; reason?: string } // eslint-disable-line @typescript-eslint/no-explicit-any

/** A `ws` client of the realtime endpoint, keeping every frame it receives. */
class Client {
  frames: Frame[] = [];
  private constructor(readonly socket: WebSocket) {
    socket.on('message', (d) => this.frames.push(JSON.parse(String(d)) as Frame));
  }
  static async open(base: string, token: string): Promise<Client> {
    const socket = new WebSocket(`${base.replace(/^http/, 'ws')}/realtime?token=${encodeURIComponent(token)}`);
    await new Promise<void>((resolve, reject) => { socket.once('open', () => resolve()); socket.once('error', reject); });
    return new Client(socket);
  }
  send(frame: object) { this.socket.send(JSON.stringify(frame)); }
  /** Waits for a frame matching `pred` (received before or after the call). */
  async next(pred: (f: Frame) => boolean, what: string): Promise<Frame> {
    await expect.poll(() => this.frames.some(pred), { message: `ws client waits for ${what}`, timeout: 10_000 }).toBe(true);
    return this.frames.find(pred)!;
  }
  close() { this.socket.close(); }
}

async function signIn(base: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

async function addUser(ws: Workspace, email: string, name: string) {
  const res = await ws.api('POST', '/users', { email, password: 'user-password-1', name });
  expect(res.status).toBe(201);
  return res.body as { _id: string };
}

test('channels, members, live messages with a ws client, edit and delete, act as a member', async ({ signedIn: page, ws }) => {
  test.setTimeout(90_000);
  const alice = await addUser(ws, 'alice@example.com', 'Alice');
  await page.goto(`/app/${ws.id}/chats`);
  await expect(page.getByRole('link', { name: 'Chats' })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByText('No channel yet.')).toBeVisible();
  await expectAccessible(page, 'chats, no channel');

  // Create: the API's refusal shows at its field, then the channel opens.
  await page.getByRole('button', { name: 'New channel' }).click();
  const create = page.getByRole('dialog', { name: 'New channel' });
  await create.getByRole('button', { name: 'Create channel' }).click();
  await expect(create.locator('.field-error')).toBeVisible();
  await create.getByLabel('Name *').fill('general');
  await create.getByRole('button', { name: 'Create channel' }).click();
  await expect(create).toBeHidden();
  await expect(page.getByRole('heading', { name: 'general' })).toBeVisible();
  const channelId = page.url().split('/chats/')[1].split('?')[0];
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();

  // Add Alice with the user picker.
  await page.getByRole('button', { name: 'Add member' }).click();
  const add = page.getByRole('dialog', { name: 'Add a member' });
  await add.getByLabel('Find a user by email').fill('alice');
  await expect(add.getByRole('button', { name: /^Add / })).toHaveCount(1);
  await expectAccessible(page, 'add member dialog');
  await add.getByRole('button', { name: 'Add alice@example.com' }).click();
  await expect(add.getByRole('button', { name: 'Add alice@example.com' })).toBeDisabled();
  await add.getByRole('button', { name: 'Close' }).click();
  await expect(page.getByRole('button', { name: 'Remove alice@example.com' })).toBeVisible();
  expect((await ws.api('GET', `/chats/${channelId}/members`)).body.data.map((m: { userId: string }) => m.userId)).toContain(alice._id);

  // Alice, signed in through the API, on a real ws client.
  const client = await Client.open(ws.base, await signIn(ws.base, 'alice@example.com', 'user-password-1'));
  try {
    client.send({ type: 'subscribe', topic: `chat:${channelId}` });
    await client.next((f) => f.type === 'subscribed', 'subscribed');
    const log = page.getByRole('log', { name: 'Messages' });

    // Her message appears in the page without a reload.
    client.send({ type: 'message', channelId, text: 'hello from a ws client' });
    await expect(log.getByRole('listitem', { name: /^Alice \(alice@example\.com\): hello from a ws client/ })).toBeVisible();

    // The page's message reaches her, as the admin.
    const me = (await ws.api('GET', '/auth/me')).body as { _id: string };
    await page.getByLabel('Message', { exact: true }).fill('hello from the console');
    await page.getByLabel('Message', { exact: true }).press('Enter');
    const created = await client.next((f) => f.event === 'message.created' && f.data?.text === 'hello from the console', 'the console message');
    expect(created.data!.author._id).toBe(me._id);
    await expectAccessible(page, 'channel with messages');
    await page.getByLabel('Theme').selectOption('dark');
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await expectAccessible(page, 'channel with messages, dark theme');
    await page.getByLabel('Theme').selectOption('light');

    // Edit, then delete the console's own message; she sees both.
    const mine = log.getByRole('listitem').filter({ hasText: 'hello from the console' });
    await expect(log.getByRole('button', { name: /^Edit message “hello from a ws client/ })).toHaveCount(0);
    await mine.getByRole('button', { name: /^Edit message/ }).click();
    await log.getByLabel('Edit the message').fill('hello, edited');
    await expectAccessible(page, 'a message being edited');
    await log.getByLabel('Edit the message').press('Enter');
    await client.next((f) => f.event === 'message.updated' && f.data?.text === 'hello, edited', 'the edit');
    const edited = log.getByRole('listitem').filter({ hasText: 'hello, edited' });
    await expect(edited).toContainText('(edited)');
    await edited.getByRole('button', { name: /^Delete message/ }).click();
    await page.getByRole('dialog', { name: 'Delete this message?' }).getByRole('button', { name: 'Delete message' }).click();
    await client.next((f) => f.event === 'message.deleted' && f.data?.text === 'hello, edited', 'the deletion');
    await expect(edited).toBeHidden();

    // Act as Alice: her own message is editable now, and what is sent is hers.
    await page.getByRole('button', { name: 'Act as alice@example.com' }).click();
    await expect(page.getByRole('group', { name: 'Identity' })).toContainText('Acting as Alice (alice@example.com)');
    await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
    await log.getByRole('button', { name: /^Edit message “hello from a ws client/ }).click();
    await log.getByLabel('Edit the message').fill('hello from Alice, edited in the console');
    await log.getByRole('button', { name: 'Save' }).click();
    const byAlice = await client.next((f) => f.event === 'message.updated' && f.data?.text === 'hello from Alice, edited in the console', 'her edit');
    expect(byAlice.data!.author._id).toBe(alice._id);
    // As a plain member she may not rename the channel: the server says so in the page.
    await page.getByRole('button', { name: 'Rename' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename general' });
    await rename.getByLabel('Name *').fill('lobby');
    await rename.getByRole('button', { name: 'Save' }).click();
    await expect(rename.getByRole('alert')).toContainText('FORBIDDEN');
    await rename.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: 'Act as the admin again' }).click();

    // Rename and delete (confirmed) as the admin; her subscription ends with the channel.
    await page.getByRole('button', { name: 'Rename' }).click();
    await rename.getByLabel('Name *').fill('lobby');
    await rename.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('heading', { name: 'lobby' })).toBeVisible();
    await expect(page.getByRole('link', { name: /^lobby/ })).toBeVisible();
    await page.getByRole('button', { name: 'Delete channel' }).click();
    const del = page.getByRole('dialog', { name: 'Delete lobby' });
    await expect(del).toContainText('All its messages are deleted');
    await del.getByRole('button', { name: 'Delete channel' }).click();
    await client.next((f) => f.type === 'unsubscribed' && f.reason === 'channel deleted', 'the end of the channel');
    await expect(page.getByText('No channel yet.')).toBeVisible();
    expect((await ws.api('GET', `/chats/channels/${channelId}`)).status).toBe(404);
  } finally {
    client.close();
  }
});

test('older messages page in, 50 at a time, in order', async ({ signedIn: page, ws }) => {
  test.setTimeout(60_000);
  const channel = (await ws.api('POST', '/chats/channels', { name: 'history' })).body as { _id: string };
  for (let i = 1; i <= 60; i++) {
    expect((await ws.api('POST', `/chats/${channel._id}/messages`, { text: `message ${i}` })).status).toBe(201);
  }
  await page.goto(`/app/${ws.id}/chats/${channel._id}`);
  const items = page.getByRole('log', { name: 'Messages' }).getByRole('listitem');
  await expect(items).toHaveCount(50);
  await expect(items.first()).toContainText('message 11');
  await expect(items.last()).toContainText('message 60');
  await page.getByRole('button', { name: 'Load older messages' }).click();
  await expect(items).toHaveCount(60);
  await expect(items.first()).toContainText('message 1');
  await expect(page.getByRole('button', { name: 'Load older messages' })).toBeHidden();
  // Admin moderation: another user's message offers Delete (not Edit) and says whose it is.
  const carol = await addUser(ws, 'carol@example.com', 'Carol');
  expect((await ws.api('POST', `/chats/${channel._id}/members`, { userId: carol._id })).status).toBe(201);
  const carolToken = await signIn(ws.base, 'carol@example.com', 'user-password-1');
  await fetch(`${ws.base}/chats/${channel._id}/messages`, { method: 'POST', headers: { authorization: `Bearer ${carolToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'spam from Carol' }) });
  const spam = items.filter({ hasText: 'spam from Carol' });
  await expect(spam).toBeVisible();
  await expect(spam.getByRole('button', { name: /^Edit/ })).toHaveCount(0);
  await spam.getByRole('button', { name: /^Delete message/ }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete this message?' });
  await expect(confirm).toContainText('It is not yours');
  await confirm.getByRole('button', { name: 'Delete message' }).click();
  await expect(spam).toBeHidden();
  await expect(items).toHaveCount(60);
});

test('a message that arrives while the newest page is loading stays on the page', async ({ signedIn: page, ws }) => {
  const channel = (await ws.api('POST', '/chats/channels', { name: 'race' })).body as { _id: string };
  // The page's fetch of its newest messages is read from the server at once (before the message
  // below exists) and handed to the page only after that message's live event has been shown.
  let release!: () => void;
  const held = new Promise<void>((r) => { release = r; });
  let read!: () => void;
  const readEarly = new Promise<void>((r) => { read = r; });
  await page.route(`**/chats/${channel._id}/messages*`, async (route) => {
    if (route.request().method() !== 'GET') return route.fallback();
    const response = await route.fetch();
    read();
    await held;
    await route.fulfill({ response });
  });
  await page.goto(`/app/${ws.id}/chats/${channel._id}`);
  await expect(page.getByRole('status').filter({ hasText: /Live/ })).toHaveText(/^Live/);
  await readEarly;
  expect((await ws.api('POST', `/chats/${channel._id}/messages`, { text: 'arrived while loading' })).status).toBe(201);
  const log = page.getByRole('log', { name: 'Messages' });
  await expect(log).toContainText('arrived while loading');
  const answered = page.waitForResponse((r) => r.url().includes(`/chats/${channel._id}/messages`) && r.request().method() === 'GET');
  release();
  await answered;
  // Two frames: the stale page has been applied and rendered.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await expect(page.getByText('No message yet.')).toHaveCount(0);
  await expect(log).toContainText('arrived while loading');
});

const ROOT = fileURLToPath(new URL('..', import.meta.url));

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

/** The CLI on a data folder: the same folder and port after a restart. */
async function startServer(dir: string, port: number, token: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli.ts', 'serve', '--json', '--quiet', '--port', String(port), '--data', dir,
    '--console-token', token, '--admin-password', 'admin-password-1'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => { err += d; });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d) => { if (String(d).includes('\n')) resolve(); });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${err}`)));
  });
  return child;
}

async function stop(child: ChildProcess | undefined) {
  if (!child || child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((r) => { child.once('exit', r); setTimeout(r, 10_000); });
}

test('the page reconnects by itself after its server restarts, and misses nothing', async ({ page }) => {
  test.setTimeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), 'homebase-chats-e2e-'));
  const port = await freePort();
  const token = `e2e-restart-${port}`;
  const url = `http://127.0.0.1:${port}`;
  const base = `${url}/api/app/demo`;
  let server: ChildProcess | undefined = await startServer(dir, port, token);
  try {
    // Arrange over HTTP: Bob, and a channel of the admin with Bob in it.
    const admin = ((await (await fetch(`${url}/api/workspaces/demo/token`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })).json()) as { token: string }).token;
    const call = async (path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBe(201);
      return (await res.json()) as { _id: string };
    };
    const bob = await call('/users', { email: 'bob@example.com', password: 'user-password-1', name: 'Bob' });
    const channel = await call('/chats/channels', { name: 'ops', members: [bob._id] });

    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${url}/app/demo/chats/${channel._id}#token=${token}`);
    const status = page.getByRole('status').filter({ hasText: /Live|Reconnect|Disconnected|Connecting/ });
    await expect(status).toHaveText(/^Live/);

    await stop(server);
    server = undefined;
    await expect(status).toHaveText(/Disconnected\. Reconnecting in \d+ s/);
    await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
    await page.getByLabel('Message', { exact: true }).fill('typed while the server was down');

    server = await startServer(dir, port, token);
    // Posted before the page is back: fetched again once it resubscribes.
    const bobToken = await signIn(base, 'bob@example.com', 'user-password-1');
    const posted = await fetch(`${base}/chats/${channel._id}/messages`, { method: 'POST', headers: { authorization: `Bearer ${bobToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'posted during the restart' }) });
    expect(posted.status).toBe(201);
    await expect(status).toHaveText(/^Live/, { timeout: 30_000 });
    const log = page.getByRole('log', { name: 'Messages' });
    await expect(log).toContainText('posted during the restart');

    // Live both ways again, over the new server's socket.
    const client = await Client.open(base, bobToken);
    try {
      client.send({ type: 'subscribe', topic: `chat:${channel._id}` });
      await client.next((f) => f.type === 'subscribed', 'subscribed');
      await page.getByRole('button', { name: 'Send' }).click();
      await client.next((f) => f.event === 'message.created' && f.data?.text === 'typed while the server was down', 'the kept message');
      client.send({ type: 'message', channelId: channel._id, text: 'after the restart' });
      await expect(log).toContainText('after the restart');
    } finally {
      client.close();
    }
    expect(errors, 'uncaught page errors').toEqual([]);
  } finally {
    await stop(server);
    rmSync(dir, { recursive: true, force: true });
  }
});

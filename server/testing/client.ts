// The HTTP side of the test helpers: a fork of a workspace as a test sees it (its API address,
// an admin token, requests, the outbox, deletion), made through the console API, so it works
// the same against a server in this process, in a global setup or anywhere else. Forks not
// deleted by the test are deleted when the process is about to exit, and the fork's `ttl` is
// the backstop when even that cannot run (a killed worker).

/** Where a Homebase server answers and how to reach its console API. */
export interface HomebaseConnection {
  /** `http://127.0.0.1:PORT/api` */
  url: string;
  consoleToken: string;
  /** The workspace forks are taken from by default (`demo`). */
  workspace: string;
}

export interface ForkOptions {
  /** The workspace to fork (default: the server's default workspace). */
  from?: string;
  /** Fork this snapshot of it instead of its live content. */
  snapshot?: string;
  /** Seconds without a request after which the server deletes the fork (default 600): the
   *  backstop for a fork nobody deleted. */
  ttl?: number;
  /** The fork's id (default: chosen by the server). */
  id?: string;
}

/** What a request to the fork answers: status, JSON body (or text), headers. */
export interface HomebaseResponse<T = any> { status: number; body: T; headers: Record<string, string> }

export interface RequestOptions {
  /** A JSON body. */
  body?: unknown;
  /** Bearer token: the fork's admin token unless given; `null` sends none. */
  token?: string | null;
  headers?: Record<string, string>;
}

/** An email of the workspace outbox, with the links and codes found in it. */
export interface OutboxEmail { _id: string; type: string; to: string; subject: string; text: string; createdAt: string; links: string[]; codes: string[]; [key: string]: unknown }

export interface HomebaseFork {
  /** The fork's workspace id. */
  id: string;
  /** The fork's workspace API: `${url}/app/${id}`. */
  api: string;
  /** The server's `/api` address. */
  url: string;
  consoleToken: string;
  /** An admin token of the fork (minted on first use, then kept). */
  adminToken(): Promise<string>;
  /** A request to the fork's workspace API (`path` under `api`), as its admin unless `token` says otherwise. */
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<HomebaseResponse<T>>;
  /** Waits up to `waitMs` (at most 30000) for emails to `to`; resolves to them, newest first. */
  outbox(to: string, waitMs?: number): Promise<OutboxEmail[]>;
  /** Deletes the fork (done for you by the fixtures and hooks). Deleting twice is harmless. */
  delete(): Promise<void>;
}

const live = new Set<HomebaseFork>();
let exitHook = false;

/** Deletes the forks still alive when the process is about to exit (the event loop ran dry). */
function installExitHook(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('beforeExit', () => { void Promise.allSettled([...live].map((f) => f.delete())); });
}

async function call<T>(method: string, url: string, token: string | null, options: RequestOptions = {}): Promise<HomebaseResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (options.body !== undefined) { body = JSON.stringify(options.body); headers['content-type'] ??= 'application/json'; }
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = text ? JSON.parse(text) : undefined; } catch { /* not JSON: the text */ }
  return { status: res.status, body: parsed as T, headers: Object.fromEntries(res.headers) };
}

/** Takes a fork of `options.from` (default: the connection's workspace) on a running server. */
export async function createFork(server: HomebaseConnection, options: ForkOptions = {}): Promise<HomebaseFork> {
  const from = options.from ?? server.workspace;
  const made = await call<{ _id: string; error?: { message: string } }>('POST', `${server.url}/workspaces/${encodeURIComponent(from)}/fork`, server.consoleToken, {
    body: { ttl: options.ttl ?? 600, ...(options.snapshot !== undefined ? { snapshot: options.snapshot } : {}), ...(options.id !== undefined ? { _id: options.id } : {}) },
  });
  if (made.status !== 201) throw new Error(`Homebase: could not fork workspace '${from}' (${made.status}): ${made.body?.error?.message ?? JSON.stringify(made.body)}`);
  const id = made.body._id;
  const api = `${server.url}/app/${id}`;
  let token: Promise<string> | undefined;
  let deleted: Promise<void> | undefined;
  const fork: HomebaseFork = {
    id, api, url: server.url, consoleToken: server.consoleToken,
    adminToken: () => (token ??= call<{ token: string }>('POST', `${server.url}/workspaces/${id}/token`, server.consoleToken).then((r) => {
      if (r.status !== 200) { token = undefined; throw new Error(`Homebase: no admin token for fork '${id}' (${r.status})`); }
      return r.body.token;
    })),
    request: async (method, path, o = {}) => call(method, `${api}${path}`, o.token === undefined ? await fork.adminToken() : o.token, o),
    outbox: async (to, waitMs = 10_000) => {
      const r = await call<{ data: OutboxEmail[] }>('GET', `${server.url}/workspaces/${id}/outbox?to=${encodeURIComponent(to)}&wait=${waitMs}`, server.consoleToken);
      if (r.status !== 200) throw new Error(`Homebase: outbox of fork '${id}' answered ${r.status}`);
      return r.body.data;
    },
    delete: () => (deleted ??= (async () => {
      live.delete(fork);
      const r = await call('DELETE', `${server.url}/workspaces/${id}`, server.consoleToken).catch(() => undefined);
      // 404: already gone (its ttl, or the server stopped with it in memory).
      if (r && r.status !== 204 && r.status !== 404) throw new Error(`Homebase: could not delete fork '${id}' (${r.status})`);
    })()),
  };
  live.add(fork);
  installExitHook();
  return fork;
}

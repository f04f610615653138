// The HTTP side of `homebase mcp`: one workspace of a running Homebase server, reached with an
// admin token of that workspace (minted through the console API with the console token, and
// minted again when it expires) for the workspace API, and with the console token for the
// console-level tools of that workspace (request log, outbox, snapshots).

/** An answer of the server other than 2xx: its status and the error body's code and message. */
export class HomebaseError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly details?: unknown) {
    super(message);
  }
}

/** The server cannot be used at all (not reachable, token refused, no such workspace). */
export class McpStartError extends Error {}

export interface Query { [key: string]: string | number | boolean | undefined }

export class HomebaseClient {
  private adminToken: string | undefined;

  /** `origin`: `http://host:port` (the console URL). */
  constructor(readonly origin: string, private readonly consoleToken: string, readonly workspace: string) {}

  get apiBase(): string { return `${this.origin}/api`; }

  /** Checks that the server answers, that the console token is accepted and that the workspace
   *  exists, and mints the first admin token; a McpStartError says which failed. */
  async connect(): Promise<void> {
    try {
      const health = await fetch(`${this.apiBase}/health`, { signal: AbortSignal.timeout(10_000) });
      const body = await health.json().catch(() => undefined) as { status?: string } | undefined;
      if (!health.ok || body?.status !== 'ok') throw new McpStartError(`${this.origin} answered ${health.status} to /api/health: is it a Homebase server?`);
    } catch (err) {
      if (err instanceof McpStartError) throw err;
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      throw new McpStartError(`cannot reach a Homebase server at ${this.origin} (${cause}): start one with 'homebase serve', or pass --data DIR to serve a data folder here`);
    }
    await this.mint(true);
  }

  /** Mints an admin token of the workspace. */
  private async mint(starting = false): Promise<string> {
    const res = await fetch(`${this.apiBase}/workspaces/${encodeURIComponent(this.workspace)}/token`, {
      method: 'POST', headers: { authorization: `Bearer ${this.consoleToken}` },
    });
    if (res.ok) {
      this.adminToken = ((await res.json()) as { token: string }).token;
      return this.adminToken;
    }
    const error = await errorOf(res);
    if (!starting) throw error;
    if (res.status === 401) throw new McpStartError(`the console token was refused by ${this.origin}: pass the server's --console-token (or HOMEBASE_CONSOLE_TOKEN)`);
    if (res.status === 404) {
      const list = await this.console('GET', '/workspaces', { limit: 100 }).catch(() => undefined) as { data?: Array<{ _id: string }> } | undefined;
      const known = list?.data?.map((w) => w._id).join(', ');
      throw new McpStartError(`there is no workspace '${this.workspace}' on ${this.origin}${known ? ` (it has: ${known})` : ''}: pass --workspace ID`);
    }
    throw new McpStartError(`could not mint an admin token of '${this.workspace}': ${error.status} ${error.message}`);
  }

  /** A request to the workspace API (`/api/app/{workspace}{path}`) as the workspace's admin. */
  async workspaceApi(method: string, path: string, query?: Query, body?: unknown): Promise<unknown> {
    const url = `${this.apiBase}/app/${encodeURIComponent(this.workspace)}${path}${queryString(query)}`;
    let res = await send(method, url, this.adminToken ?? await this.mint(), body);
    if (res.status === 401) res = await send(method, url, await this.mint(), body); // expired: mint anew once
    return answer(res);
  }

  /** A request to the console API (`/api{path}`) with the console token. */
  async console(method: string, path: string, query?: Query, body?: unknown): Promise<unknown> {
    return answer(await send(method, `${this.apiBase}${path}${queryString(query)}`, this.consoleToken, body));
  }

  /** A console API path of this workspace: `/workspaces/{id}{rest}`. */
  workspacePath(rest: string): string {
    return `/workspaces/${encodeURIComponent(this.workspace)}${rest}`;
  }
}

function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

function send(method: string, url: string, token: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
}

async function answer(res: Response): Promise<unknown> {
  if (!res.ok) throw await errorOf(res);
  if (res.status === 204) return null;
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

async function errorOf(res: Response): Promise<HomebaseError> {
  const text = await res.text().catch(() => '');
  try {
    const e = (JSON.parse(text) as { error?: { code?: string; message?: string; details?: unknown } }).error;
    if (e?.code) return new HomebaseError(res.status, e.code, e.message ?? e.code, e.details);
  } catch { /* not the error shape */ }
  return new HomebaseError(res.status, `HTTP_${res.status}`, text.slice(0, 500) || res.statusText);
}

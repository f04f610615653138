// An API key against a bearer token: GET by id of one record on v1, with `X-API-Key` (a key
// with database:read) and with the bearer token of the other rows (a signed-in user's), in interleaved rounds on the same
// server and data. The target: the key within 10 % of the token.
import { measureInterleaved, type Figure, type LoadOptions, type Operation } from './load.js';
import { prng } from './data.js';
import type { Target } from './proc.js';
import { recordsPath } from './targets.js';
import type { BenchResults } from './suite.js';

export interface ApiKeyFigures { size: number; bearer: Figure; apiKey: Figure }

/** A key made with an admin token minted through the console API. */
async function makeKey(origin: string, consoleToken: string): Promise<string> {
  const workspace = /\/api\/app\/([^/]+)\//.exec(recordsPath)![1];
  const minted = await fetch(`${origin}/api/workspaces/${workspace}/token`, { method: 'POST', headers: { authorization: `Bearer ${consoleToken}` } });
  if (minted.status !== 200) throw new Error(`admin token: ${minted.status} ${await minted.text()}`);
  const token = ((await minted.json()) as { token: string }).token;
  const keysPath = recordsPath.replace('/api/app/', '/api/v2/app/').replace(/\/database\/.*$/, '/api-keys');
  const res = await fetch(origin + keysPath, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', scopes: ['database:read'] }),
  });
  if (res.status !== 201) throw new Error(`API key: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { key: string } }).data.key;
}

/** `token`: the bearer token the other rows send (a signed-in user's). */
export async function measureApiKey(t: Target, token: string, consoleToken: string, size: number, ids: string[], load: LoadOptions, log: (s: string) => void): Promise<ApiKeyFigures> {
  const key = await makeKey(t.origin, consoleToken);
  const byId = (headers: Record<string, string>): Operation => {
    const rand = prng(13);
    return { method: 'GET', headers, next: () => ({ path: `${recordsPath}/${ids[Math.floor(rand() * ids.length)]}` }) };
  };
  log(`API key @ ${size}: GET by id with X-API-Key and with a bearer token`);
  const [bearer, apiKey] = await measureInterleaved([
    { origin: t.origin, pid: t.child.pid, op: byId({ authorization: `Bearer ${token}` }) },
    { origin: t.origin, pid: t.child.pid, op: byId({ 'x-api-key': key }) },
  ], load);
  return { size, bearer, apiKey };
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const fmt = (n: number) => (n >= 100 ? int(n) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const fig = (f: Figure) => `${fmt(f.median)} (${fmt(f.min)}–${fmt(f.max)})`;
const ratio = (a: Figure, b: Figure) => (b.median > 0 ? a.median / b.median : NaN);
const of = (r: BenchResults) => (r.extra.apiKeys as ApiKeyFigures[] | undefined) ?? [];

/** Rows in the table's columns (Measure, Records, Homebase, json-server, bare, ratios). */
export function apiKeyRows(r: BenchResults): string[][] {
  return of(r).flatMap((f) => [
    ['GET by id with X-API-Key (req/s)', int(f.size), fig(f.apiKey), '', '', '', ''],
    ['  with a bearer token, same rounds (req/s)', int(f.size), fig(f.bearer), '', '', '', `key/token ${fmt(ratio(f.apiKey, f.bearer))}×`],
  ]);
}

export function apiKeyTargets(r: BenchResults): Array<{ target: string; value: string; ok: boolean | undefined }> {
  return of(r).map((f) => {
    const x = ratio(f.apiKey, f.bearer);
    return { target: `API-key request within 10 % of a bearer-token one @ ${int(f.size)}`, value: `${fmt(x)}×`, ok: x >= 0.9 };
  });
}

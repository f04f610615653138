// The v2 preview's figures, measured on the same running Homebase as v1's rows: GET by id
// through v2 against v1 (interleaved rounds), a page of 50 by cursor against the same page by
// offset near the start and deep in the list, and a v2 list of 50 compressed with brotli
// against the same list uncompressed (throughput and the server's CPU time per request).
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { measure, measureInterleaved, median, type Figure, type LoadOptions, type Operation } from './load.js';
import { prng } from './data.js';
import type { Target } from './proc.js';
import { recordsPath } from './targets.js';

export const v2RecordsPath = recordsPath.replace('/api/app/', '/api/v2/app/');

export interface V2Figures {
  size: number;
  get: { v1: Figure; v2: Figure };
  /** Pages of 50 sorted by `age` (then `_id`), 200 positions picked at random (more than the
   *  store's answer memo holds), from the start and from the last 10,000 records on. */
  pages: Array<{ where: 'start' | 'deep'; fromOffset: number; offset: Figure; cursor: Figure }>;
  compression: { identity: Figure; brotli: Figure; cpuMsPerRequest: { identity: number; brotli: number }; bytes: { identity: number; brotli: number } };
}

const PAGE = 'sort=age&limit=50';

function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // USER_HZ = 100
}

async function getJson(origin: string, path: string, token: string, headers: Record<string, string> = {}): Promise<{ body: any; bytes: number }> {
  const res = await fetch(origin + path, { headers: { authorization: `Bearer ${token}`, ...headers } });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  const buf = Buffer.from(await res.arrayBuffer());
  return { body: JSON.parse(buf.toString()), bytes: Number(res.headers.get('content-length') ?? buf.length) };
}

/** 200 consecutive page positions from `fromOffset`: each one's offset and the cursor of the same page. */
async function positions(origin: string, token: string, fromOffset: number): Promise<Array<{ offset: number; cursor: string }>> {
  const out: Array<{ offset: number; cursor: string }> = [];
  let page = (await getJson(origin, `${v2RecordsPath}?${PAGE}&offset=${fromOffset}`, token)).body;
  let offset = fromOffset;
  while (out.length < 200 && page.pagination.next) {
    offset += 50;
    out.push({ offset, cursor: page.pagination.next });
    page = (await getJson(origin, `${v2RecordsPath}?${PAGE}&cursor=${encodeURIComponent(page.pagination.next)}`, token)).body;
  }
  return out;
}

export async function measureV2(t: Target, token: string, size: number, ids: string[], load: LoadOptions, log: (s: string) => void): Promise<V2Figures> {
  const headers = { authorization: `Bearer ${token}` };
  const byId = (base: string): Operation => {
    const rand = prng(7);
    return { method: 'GET', headers, next: () => ({ path: `${base}/${ids[Math.floor(rand() * ids.length)]}` }) };
  };
  log(`v2 @ ${size}: GET by id, v1 and v2`);
  const [v1, v2] = await measureInterleaved([
    { origin: t.origin, pid: t.child.pid, op: byId(recordsPath) },
    { origin: t.origin, pid: t.child.pid, op: byId(v2RecordsPath) },
  ], load);

  const pages: V2Figures['pages'] = [];
  for (const [where, fromOffset] of [['start', 0], ['deep', Math.max(0, size - 10_050)]] as const) {
    log(`v2 @ ${size}: pages by offset and by cursor (${where})`);
    const at = await positions(t.origin, token, fromOffset);
    if (!at.length) continue;
    const pick = (kind: 'offset' | 'cursor'): Operation => {
      const rand = prng(11);
      return {
        method: 'GET', headers,
        next: () => {
          const p = at[Math.floor(rand() * at.length)];
          return { path: `${v2RecordsPath}?${PAGE}&${kind === 'offset' ? `offset=${p.offset}` : `cursor=${encodeURIComponent(p.cursor)}`}` };
        },
      };
    };
    const [offset, cursor] = await measureInterleaved([
      { origin: t.origin, pid: t.child.pid, op: pick('offset') },
      { origin: t.origin, pid: t.child.pid, op: pick('cursor') },
    ], load);
    pages.push({ where, fromOffset, offset, cursor });
  }

  log(`v2 @ ${size}: a list of 50, brotli and uncompressed`);
  const list = `${v2RecordsPath}?limit=50`;
  const listOp = (encoding: string): Operation => ({ method: 'GET', headers: { ...headers, 'accept-encoding': encoding }, next: () => ({ path: list }) });
  const bytes = {
    identity: (await getJson(t.origin, list, token, { 'accept-encoding': 'identity' })).bytes,
    brotli: await rawBytes(t.origin + list, { ...headers, 'accept-encoding': 'br' }),
  };
  // CPU time of the server per answered request, run by run (alternating), medians.
  const runs: Record<'identity' | 'brotli', { figs: Figure[]; cpu: number[] }> = { identity: { figs: [], cpu: [] }, brotli: { figs: [], cpu: [] } };
  if (load.warmup > 0) for (const enc of ['identity', 'br']) await measure(t.origin, listOp(enc), { ...load, repeats: 1, duration: load.warmup, warmup: 0 });
  for (let i = 0; i < load.repeats; i++) {
    for (const [kind, enc] of [['identity', 'identity'], ['brotli', 'br']] as const) {
      const before = cpuMs(t.child.pid!);
      const fig = await measure(t.origin, listOp(enc), { ...load, repeats: 1, warmup: 0 });
      const used = cpuMs(t.child.pid!) - before;
      runs[kind].figs.push(fig);
      runs[kind].cpu.push(used / Math.max(1, fig.median * load.duration));
    }
  }
  const merge = (figs: Figure[]): Figure => {
    const rps = figs.map((f) => f.median);
    return { median: median(rps), min: Math.min(...rps), max: Math.max(...rps), runs: rps, p50: median(figs.map((f) => f.p50)), p99: median(figs.map((f) => f.p99)), errors: figs.reduce((n, f) => n + f.errors, 0) };
  };
  return {
    size,
    get: { v1, v2 },
    pages,
    compression: {
      identity: merge(runs.identity.figs), brotli: merge(runs.brotli.figs),
      cpuMsPerRequest: { identity: median(runs.identity.cpu), brotli: median(runs.brotli.cpu) },
      bytes,
    },
  };
}

/** The size of an answer's body as sent (fetch would decompress it). */
function rawBytes(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      let n = 0;
      res.on('data', (c: Buffer) => { n += c.length; });
      res.on('end', () => resolve(n));
    }).on('error', reject).end();
  });
}

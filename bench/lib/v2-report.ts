// The v2 rows of the benchmark table and the v2 targets (bench/lib/v2.ts measures them).
import type { BenchResults } from './suite.js';
import type { Figure } from './load.js';
import type { V2Figures } from './v2.js';

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const fmt = (n: number) => (n >= 100 ? int(n) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const fig = (f?: Figure) => (f ? `${fmt(f.median)} (${fmt(f.min)}–${fmt(f.max)})` : '–');
const ratio = (a: Figure, b: Figure) => (b.median > 0 ? a.median / b.median : NaN);

function v2Of(r: BenchResults): V2Figures[] {
  return (r.extra.v2 as V2Figures[] | undefined) ?? [];
}

/** Rows in the table's columns (Measure, Records, Homebase, json-server, bare, ratios). */
export function v2Rows(r: BenchResults): string[][] {
  const out: string[][] = [];
  for (const v of v2Of(r)) {
    const size = int(v.size);
    out.push(['v2 GET by id (req/s)', size, fig(v.get.v2), '', '', '', '']);
    out.push(['  v1 GET by id, same rounds (req/s)', size, fig(v.get.v1), '', '', '', `v2/v1 ${fmt(ratio(v.get.v2, v.get.v1))}×`]);
    for (const p of v.pages) {
      out.push([`v2 page of 50 by cursor, ${p.where} (from ${int(p.fromOffset)}) (req/s)`, size, fig(p.cursor), '', '', '', '']);
      out.push([`  same page by offset (req/s)`, size, fig(p.offset), '', '', '', `cursor/offset ${fmt(ratio(p.cursor, p.offset))}×`]);
    }
    const c = v.compression;
    out.push([`v2 list of 50, brotli (req/s; ${int(c.bytes.brotli)} B)`, size, fig(c.brotli), '', '', '', '']);
    out.push([`  uncompressed (req/s; ${int(c.bytes.identity)} B)`, size, fig(c.identity), '', '', '', `br/plain ${fmt(ratio(c.brotli, c.identity))}×`]);
    out.push(['v2 list of 50: server CPU per request, brotli / uncompressed (ms)', size, `${c.cpuMsPerRequest.brotli.toFixed(3)} / ${c.cpuMsPerRequest.identity.toFixed(3)}`, '', '', '',
      `${fmt(c.cpuMsPerRequest.brotli / c.cpuMsPerRequest.identity)}×`]);
  }
  return out;
}

export function v2Targets(r: BenchResults): Array<{ target: string; value: string; ok: boolean | undefined }> {
  const out: Array<{ target: string; value: string; ok: boolean | undefined }> = [];
  for (const v of v2Of(r)) {
    const size = int(v.size);
    const g = ratio(v.get.v2, v.get.v1);
    out.push({ target: `v2 GET by id ≥ 0.8 × v1 @ ${size}`, value: `${fmt(g)}×`, ok: g >= 0.8 });
    for (const p of v.pages) {
      const x = ratio(p.cursor, p.offset);
      out.push({ target: `v2 page by cursor ${p.where === 'deep' ? 'far faster than' : 'as fast as'} by offset, ${p.where} @ ${size}`, value: `${fmt(x)}×`, ok: p.where === 'deep' ? x >= 2 : x >= 0.8 });
    }
    const c = v.compression.cpuMsPerRequest.brotli / v.compression.cpuMsPerRequest.identity;
    out.push({ target: `v2 list of 50 with brotli: server CPU ≤ 2 × uncompressed @ ${size}`, value: `${fmt(c)}×`, ok: c <= 2 });
  }
  return out;
}

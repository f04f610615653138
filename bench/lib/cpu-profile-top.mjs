// Summarises a V8 CPU profile (`node --cpu-prof`): the functions with the most self time, and the
// same time grouped by where the code lives (a package under node_modules, or a source file of
// the server), as shares of the sampled time. Idle time ("(idle)") is left out of the shares.
// Run: `node bench/lib/cpu-profile-top.mjs FILE.cpuprofile [--top 30]`
import { readFileSync } from 'node:fs';

const [file, ...rest] = process.argv.slice(2);
if (!file) { console.error('usage: node bench/lib/cpu-profile-top.mjs FILE.cpuprofile [--top 30]'); process.exit(2); }
const top = Number(rest[rest.indexOf('--top') + 1]) || 30;
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const deltas = profile.timeDeltas;
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (deltas[i] ?? 0)));

const where = (url) => {
  if (!url) return '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + 13).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (url.startsWith('node:')) return url;
  const server = url.indexOf('/server/');
  return server >= 0 ? url.slice(server + 1) : url.replace(/^file:\/\//, '');
};

const fns = new Map();
const files = new Map();
let total = 0;
let idle = 0;
for (const [id, us] of self) {
  const n = byId.get(id);
  const { functionName, url, lineNumber } = n.callFrame;
  if (functionName === '(idle)') { idle += us; continue; }
  total += us;
  const key = `${functionName || '(anonymous)'} ${where(url)}:${lineNumber + 1}`;
  fns.set(key, (fns.get(key) ?? 0) + us);
  const w = functionName === '(garbage collector)' || functionName === '(program)' ? functionName : where(url);
  files.set(w, (files.get(w) ?? 0) + us);
}
const pct = (us) => `${((100 * us) / total).toFixed(1).padStart(5)} %`;
console.log(`sampled ${(total / 1000).toFixed(0)} ms busy, ${(idle / 1000).toFixed(0)} ms idle`);
console.log('\nself time by function:');
for (const [k, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${k}`);
console.log('\nself time by place:');
for (const [k, us] of [...files].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${k}`);

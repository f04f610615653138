// The measured operations, spelled for each target: GET one record by a random id, the filtered +
// sorted list of 50 (on Homebase once with an index on the sort field, once with an index on the
// filter field only), create, and partial update of a random record.
import { personBody, prng } from './data.js';
import type { Operation } from './load.js';

export type OpName = 'get' | 'list' | 'listUnindexed' | 'create' | 'update';
export const OPS: OpName[] = ['get', 'list', 'listUnindexed', 'update', 'create']; // create last: it grows the data set
export const OP_LABELS: Record<OpName, string> = {
  get: 'GET by id',
  // One query asked over and over: after its first answer the answer memo serves it (see
  // bench/lists.ts for lists asked for the first time and a mix with writes).
  list: 'filtered + sorted list of 50, the same query repeated (answer memo)',
  listUnindexed: 'same list, no index on the sort field, repeated (answer memo)',
  create: 'create',
  update: 'partial update',
};

export type TargetKind = 'homebase' | 'json-server' | 'bare';

export interface OpContext {
  kind: TargetKind;
  /** Records path: `/api/app/demo/database/people` for Homebase, `/people` otherwise. */
  base: string;
  /** Homebase only: the same records in a collection indexed on `role` alone (listUnindexed). */
  unindexedBase?: string;
  ids: string[];
  token?: string;
}

const HB_LIST = `?${encodeURIComponent('filter[role]')}=admin&sort=-age&limit=50`;
const JS_LIST = '?role=admin&_sort=age&_order=desc&_limit=50';

export function operation(name: OpName, ctx: OpContext): Operation {
  const rand = prng(7);
  const headers = ctx.token ? { authorization: `Bearer ${ctx.token}` } : undefined;
  const pick = () => ctx.ids[Math.floor(rand() * ctx.ids.length)] ?? 'none';
  let created = 0;
  switch (name) {
    case 'get':
      return { method: 'GET', headers, next: () => ({ path: `${ctx.base}/${pick()}` }) };
    case 'list':
      return { method: 'GET', headers, next: () => ({ path: ctx.base + (ctx.kind === 'homebase' ? HB_LIST : JS_LIST) }) };
    case 'listUnindexed': {
      // json-server and bare Express index nothing: the same request as 'list'.
      const path = ctx.kind === 'homebase' ? (ctx.unindexedBase ?? ctx.base) + HB_LIST : ctx.base + JS_LIST;
      return { method: 'GET', headers, next: () => ({ path }) };
    }
    case 'create':
      return { method: 'POST', headers, next: () => ({ path: ctx.base, body: JSON.stringify(personBody(rand, 1_000_000 + created++)) }) };
    case 'update':
      return {
        method: 'PATCH',
        headers,
        next: () => ({ path: `${ctx.base}/${pick()}`, body: JSON.stringify({ age: 18 + Math.floor(rand() * 63), score: Math.round(rand() * 10_000) / 100 }) }),
      };
  }
}

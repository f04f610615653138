// `or` groups in list filters, for the faces that accept them:
//   filter[$or][0][role]=admin&filter[$or][1][age][$gte]=30
// Each index is a branch; a branch holds when all its conditions do. Inside a branch, `$and`
// may list conditions once more (filter[$or][0][$and][0][age][$gte]=30): one level of nesting,
// no deeper. Values are coerced as in any other filter (buildCondition).
import { ApiError } from './errors.js';
import { assertPath, buildCondition, single, type TypeOf } from './list-query.js';
import type { Condition } from '../shared/query.js';

const OR_KEY = /^filter\[\$or\]/;
/** filter[$or][i] then either [path][$op]? or [$and][j][path][$op]? */
const BRANCH = /^filter\[\$or\]\[(\d{1,3})\](?:\[\$and\]\[(\d{1,3})\])?\[([^\][]+)\](?:\[([^\][]+)\])?$/;

export function isOrFilterKey(key: string): boolean {
  return OR_KEY.test(key);
}

/** The `or` group of a raw query (none when it has no filter[$or] key). */
export function parseOrGroups(query: Record<string, unknown>, typeOf?: TypeOf): Condition[][][] {
  const branches = new Map<number, Condition[]>();
  for (const [key, raw] of Object.entries(query)) {
    if (!OR_KEY.test(key)) continue;
    const m = BRANCH.exec(key);
    if (!m) {
      const nested = /\[\$(or|and)\].*\[\$(or|and)\].*\[\$(or|and)\]|\[\$or\].*\[\$or\]/.exec(key);
      if (nested) {
        throw ApiError.badRequest(`'${key}' nests filter groups too deeply: an $or group may hold $and once, nothing deeper`, { field: 'filter[$or]', parameter: key });
      }
      throw ApiError.badRequest(`Malformed filter parameter '${key}'; use filter[$or][N][field]=value, filter[$or][N][field][$op]=value or filter[$or][N][$and][M][field]=value`, { field: 'filter[$or]', parameter: key });
    }
    const [, branch, , path, op = '$eq'] = m;
    if (path.startsWith('$')) {
      throw ApiError.badRequest(`'${key}': '${path}' is not allowed there; an $or group may hold $and once, nothing deeper`, { field: 'filter[$or]', parameter: key });
    }
    assertPath(path, 'filter');
    const list = branches.get(Number(branch)) ?? [];
    list.push(buildCondition(path, op, single(raw, key), typeOf));
    branches.set(Number(branch), list);
  }
  if (branches.size === 0) return [];
  return [[...branches.entries()].sort((a, b) => a[0] - b[0]).map(([, conditions]) => conditions)];
}

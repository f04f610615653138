// A webhook's `filter.match`: conditions on the event's `data` in the list filter's language
// (`{ status: "paid", total: { $gte: 100 }, "customer.country": { $in: ["FR", "DE"] } }`), read
// by the same parser as views' object filters (core/list-query.ts) and run by the same matcher
// as the stores' lists (storage/query-match.ts compileMatcher). Without a schema, values are coerced
// as in a schemaless list: `25`, `true`, `null` match the typed value and its string.
import { z } from 'zod';
import { conditionsFromObject } from '../../core/list-query.js';
import { ApiError } from '../../core/errors.js';
import { compileMatcher, type Doc } from '../../storage/query.js';

export type MatchSpec = Record<string, unknown>;

/** Why a match object cannot run (an unknown operator, a bad path or value), or undefined. */
export function matchProblem(match: MatchSpec): { field: string; message: string } | undefined {
  try {
    conditionsFromObject(match);
    return undefined;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const field = typeof err.details?.field === 'string' ? err.details.field : '';
    return { field, message: err.message };
  }
}

/** `match` as a request body gives it: an object whose problems are reported at
 *  `filter.match.<path>`, naming the operator or value at fault. */
export const MatchObject = z.record(z.string(), z.unknown()).superRefine((match, ctx) => {
  const problem = matchProblem(match);
  if (problem) ctx.addIssue({ code: 'custom', path: problem.field && problem.field in match ? [problem.field] : [], message: problem.message });
});

// A match is stored as its JSON text (`filter.matchJson`): its keys (`$gte`, `a.b`) are not
// keys a store may hold. Not server state: a bounded memo of a pure function of the text.
const compiled = new Map<string, (doc: Doc) => boolean>();
const COMPILED_MAX = 1000;

/** Does the event's `data` satisfy the stored match? (Compiled once per distinct match.) */
export function dataMatches(matchJson: string, data: unknown): boolean {
  let test = compiled.get(matchJson);
  if (!test) {
    test = compileMatcher(conditionsFromObject(JSON.parse(matchJson) as MatchSpec));
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    compiled.set(matchJson, test);
  }
  return data !== null && typeof data === 'object' && test(data as Doc);
}

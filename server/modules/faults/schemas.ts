// What `PUT /workspaces/{app_id}/faults` accepts, and the form it is stored in (the workspace's
// settings, under `faults`). Strict: an unknown field anywhere is a 422 naming it.
import { z } from 'zod';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

const Match = z.strictObject({
  /** An HTTP method (any letter case). */
  method: z.string().transform((m) => m.toUpperCase()).pipe(z.enum(METHODS)).optional(),
  /** A glob on the workspace path (after `/api/app/{app_id}`, no query string), e.g. `/database/todos/*`. */
  path: z.string().min(1).max(500).startsWith('/').optional(),
  /** The workspace's realtime sockets. */
  realtime: z.literal(true).optional(),
  /** The workspace's outgoing webhook deliveries. */
  webhook: z.literal(true).optional(),
});

export const FaultRule = z.strictObject({
  match: Match,
  /** Milliseconds a matching request waits before it goes on (or gets `status`). */
  latencyMs: z.number().int().min(0).max(60_000).optional(),
  /** The status a matching request gets, with an `INJECTED_FAULT` error body; for a webhook
   *  rule, the status the delivery fails with as if the receiver had answered it. */
  status: z.number().int().min(400).max(599).optional(),
  /** The share of matching requests the rule applies to, drawn from the seeded sequence. */
  rate: z.number().min(0).max(1).optional(),
  /** The rule applies to the first `times` matching requests only (with `rate`: at most `times`). */
  times: z.number().int().min(1).max(1_000_000).optional(),
  /** Realtime only: drop the sockets. */
  drop: z.boolean().optional(),
}).superRefine((rule, ctx) => {
  const { match } = rule;
  const issue = (path: Array<string | number>, message: string) => ctx.addIssue({ code: 'custom', path, message });
  if (match.realtime && match.webhook) issue(['match', 'webhook'], "a rule matches either 'realtime' or 'webhook', not both");
  if (match.realtime || match.webhook) {
    const which = match.realtime ? 'realtime' : 'webhook';
    if (match.method !== undefined) issue(['match', 'method'], `'match.method' does not apply to a ${which} rule`);
    if (match.path !== undefined) issue(['match', 'path'], `'match.path' does not apply to a ${which} rule`);
    if (rule.latencyMs !== undefined) issue(['latencyMs'], `'latencyMs' does not apply to a ${which} rule`);
  }
  if (match.realtime) {
    if (rule.drop !== true) issue(['drop'], "a realtime rule needs 'drop': true");
    if (rule.status !== undefined) issue(['status'], "'status' does not apply to a realtime rule");
  } else {
    if (rule.drop !== undefined) issue(['drop'], "'drop' applies to a realtime rule only");
    if (match.webhook && rule.status === undefined) issue(['status'], "a webhook rule needs a 'status'");
    if (!match.webhook && rule.status === undefined && rule.latencyMs === undefined) issue(['status'], "a rule needs a 'status', a 'latencyMs' or both");
  }
});
export type FaultRule = z.infer<typeof FaultRule>;

export const FaultsBody = z.strictObject({
  /** The seed of the rate draws: the same seed gives the same sequence. Default: a random one
   *  (GET shows it, so a run can be repeated). */
  seed: z.number().int().min(0).max(2 ** 31 - 1).optional(),
  rules: z.array(FaultRule).max(100),
});

/** As stored with the workspace's settings. `version` changes with every PUT: the counters and
 *  the random sequences start again. */
export interface StoredFaults { version: string; seed: number; rules: FaultRule[] }

// Collection access rules, used by record routes, realtime and anything else
// that shows records. `public` = anyone; `private` = any signed-in user of the workspace;
// `only-user` = the record's owner (`_owner`). Admins always pass; `remove` defaults to `update`.
import { ApiError } from '../../core/errors.js';
import type { AuthInfo } from '../caller.js';
import type { AccessLevel, CollectionDef } from '../../shared/models.js';

export type RecordOp = 'read' | 'write' | 'update' | 'remove';

/** What a caller may reach: every record, or only the records it owns. */
export type Reach = 'all' | 'own';

export function ruleFor(def: Pick<CollectionDef, 'setting'>, op: RecordOp): AccessLevel {
  const s = def.setting;
  if (op === 'remove') return s.remove ?? s.update;
  return s[op];
}

/** Checks the collection-level rule: 401 for an anonymous caller where sign-in is needed.
 *  Resolves to the caller's reach; `own` means each record must also pass `ownsRecord`. */
export function checkAccess(def: Pick<CollectionDef, 'setting'>, op: RecordOp, auth: AuthInfo | null): Reach {
  if (auth?.isAdmin) return 'all';
  const level = ruleFor(def, op);
  if (level === 'public') return 'all';
  if (!auth) throw ApiError.unauthorized(`Sign in to ${op === 'read' ? 'read' : op} records of this collection`);
  return level === 'only-user' ? 'own' : 'all';
}

export function ownsRecord(auth: AuthInfo | null, record: Record<string, unknown>): boolean {
  return !!auth && record._owner === auth.userId;
}

/** May this caller see this record (lists, realtime events)? Never throws. */
export function canReadRecord(def: Pick<CollectionDef, 'setting'>, auth: AuthInfo | null, record: Record<string, unknown>): boolean {
  if (auth?.isAdmin) return true;
  const level = ruleFor(def, 'read');
  if (level === 'public') return true;
  if (!auth) return false;
  return level === 'private' || ownsRecord(auth, record);
}

/** For one record: the rule, then ownership (403 when the caller does not own it). */
export function assertRecordAccess(def: Pick<CollectionDef, 'setting'>, op: RecordOp, auth: AuthInfo | null, record: Record<string, unknown>): void {
  if (checkAccess(def, op, auth) === 'own' && !ownsRecord(auth, record)) {
    throw ApiError.forbidden(`Only the owner of this record may ${op === 'read' ? 'read' : op} it`);
  }
}

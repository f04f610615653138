// Identifier generation and the one id pattern every client-given id follows (workspaces,
// collections, fields, views, indexes, records, users, files).
import { randomFillSync } from 'node:crypto';
import { z } from 'zod';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random bytes drawn from the system's generator a pool at a time (as nanoid and Node's own
 *  randomUUID do): one call into it per ~200 ids instead of one per id, which was a few percent
 *  of a record create's CPU time. Each byte is used once. */
const POOL_BYTES = 8192;
let pool = Buffer.alloc(0);
let used = 0;
function randomByte(): number {
  if (used === pool.length) { pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES)); used = 0; }
  return pool[used++];
}

/** 16 characters of [A-Za-z0-9], unbiased; the first is a letter so that every generated id
 *  also matches ID_PATTERN, the pattern a client-given id must match. */
export function newId(length = 16): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (out.length === 0 ? byte < 208 : byte < 248) out += ALPHABET[byte % (out.length === 0 ? 52 : 62)];
  }
  return out;
}

/** The id pattern without anchors, for composing larger patterns (the record GET fast path). */
export const ID_SOURCE = '[A-Za-z][A-Za-z0-9_-]{0,63}';
export const ID_PATTERN = new RegExp(`^${ID_SOURCE}$`);
/** What a refused id is told. */
export const ID_RULE = `must match ^${ID_SOURCE}$`;
/** A client-given id, for the zod schemas of every module. */
export const IdSchema = z.string().regex(ID_PATTERN, ID_RULE);
/** Record ids that name a collection's schema routes (`/database/{c}/fields`...). Express matches
 *  routes without regard to case, so `Fields` is as reserved as `fields`: see isReservedRecordId. */
export const RESERVED_RECORD_IDS = new Set(['fields', 'views', 'indexes']);

/** Is this record id reserved, in any spelling of case (`Fields`, `VIEWS`)? */
export function isReservedRecordId(id: string): boolean {
  return RESERVED_RECORD_IDS.has(id.toLowerCase());
}

/** Why a reserved record id is refused (a create, an import). */
export const reservedRecordIdMessage = (id: string): string => `'${id}' is reserved (fields, views and indexes, in any case)`;

/** Ids used as file or folder names (collection ids, workspace ids) are compared by this key for
 *  uniqueness: on a case-insensitive file system (macOS, Windows) `People` and `people` would be
 *  the same file. */
export function idFoldKey(id: string): string {
  return id.toLowerCase();
}

export function isValidId(id: unknown): id is string {
  return typeof id === 'string' && ID_PATTERN.test(id);
}

export function nowIso(): string {
  return new Date().toISOString();
}

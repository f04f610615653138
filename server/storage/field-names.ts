// The field-name rule of stored documents, the same on both drivers: no field name starts with
// `$` (but for the few markers the embedded file format uses) or contains a dot. A refusal says
// so in the API's one wording (core/keys.ts), naming the key.
import { keyNameMessage } from '../core/keys.js';

/** A field name the store refuses. */
export class KeyNameError extends Error {
  constructor(readonly key: string) { super(keyNameMessage(key)); }
}

/** The rule for one key (nedb's own checkKey, which the embedded driver keeps). */
function checkKey(k: string, v: unknown): void {
  if (k[0] === '$' && !(k === '$$date' && typeof v === 'number') && !(k === '$$deleted' && v === true)
    && k !== '$$indexCreated' && k !== '$$indexRemoved') throw new KeyNameError(k);
  if (k.includes('.')) throw new KeyNameError(k);
}

/** Throws when any field name at any depth breaks the rule: visits each value once, without
 *  recursion (nedb's own check doubled its time with each level of nested arrays). */
export function checkObject(obj: unknown): void {
  const stack: unknown[] = [obj];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    for (const k in v) {
      if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
      const child = (v as Record<string, unknown>)[k];
      checkKey(k, child);
      stack.push(child);
    }
  }
}


// AES-256-GCM sealing of values kept at rest (secret values, webhook signing secrets), keyed by
// the workspace's `encryptionKey` (keys.json, mode 0600). Format: `v1.<iv>.<tag>.<ciphertext>` (base64url).
// Shared by the credentials, webhooks and workspaces modules.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** What sealing needs of a workspace: its id (bound as associated data) and its key. */
export interface SealingKey { id: string; keys: { encryptionKey: string } }

function keyOf(ws: SealingKey): Buffer {
  const key = Buffer.from(ws.keys.encryptionKey, 'base64');
  if (key.length !== 32) throw new Error('workspace encryption key must be 32 bytes');
  return key;
}

export function seal(ws: SealingKey, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(ws), iv);
  // The workspace id is bound as associated data: a sealed value copied into another workspace's store does not open.
  cipher.setAAD(Buffer.from(ws.id));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

export function unseal(ws: SealingKey, sealed: string): string {
  const [version, iv, tag, ct] = sealed.split('.');
  if (version !== 'v1' || iv === undefined || tag === undefined || ct === undefined) throw new Error('unknown sealed value format');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(ws), Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(ws.id));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}

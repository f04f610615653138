// Client-given file names and types made harmless: a display name that can never act as a path,
// a content type that is a plain `type/subtype`, and the Content-Disposition header (RFC 6266).

/** Longest display name kept, in characters. */
export const MAX_NAME_LENGTH = 255;

// C0/C1 controls, DEL, and the Unicode bidi overrides that can disguise an extension.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** A display name from whatever the client sent: the last path segment, no control
 *  characters, trimmed, capped; never empty, `.` or `..`. Only ever stored, never a path. */
export function cleanName(raw: unknown, fallback = 'file'): string {
  if (typeof raw !== 'string') return fallback;
  let name = raw.replace(CONTROL, '');
  const lastSep = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
  name = name.slice(lastSep + 1).trim();
  if (name === '' || /^\.+$/.test(name)) return fallback;
  const chars = Array.from(name); // by code points, so a surrogate pair is never cut in half
  if (chars.length > MAX_NAME_LENGTH) {
    const dot = name.lastIndexOf('.');
    const ext = dot > 0 ? Array.from(name.slice(dot)) : [];
    name = ext.length > 0 && ext.length <= 16
      ? chars.slice(0, MAX_NAME_LENGTH - ext.length).join('') + ext.join('')
      : chars.slice(0, MAX_NAME_LENGTH).join('');
  }
  return name;
}

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** The stored content type: a lower-case `type/subtype` (parameters dropped), else octet-stream. */
export function cleanType(raw: unknown): string {
  if (typeof raw !== 'string') return 'application/octet-stream';
  const base = raw.split(';')[0].trim().toLowerCase();
  return MIME.test(base) ? base : 'application/octet-stream';
}

// Types a browser may show in place without running anything of the file's (no HTML, no SVG).
const INLINE = /^(image\/(png|jpeg|gif|webp|avif|bmp|x-icon|vnd\.microsoft\.icon)|audio\/[a-z0-9.+-]+|video\/[a-z0-9.+-]+|application\/pdf|text\/plain)$/;

/** May the file be displayed inline (an `<img src>`, a PDF tab)? Everything else is an attachment. */
export function isInlineSafe(type: string): boolean {
  return INLINE.test(type);
}

/** `inline|attachment; filename="ascii fallback"; filename*=UTF-8''percent-encoded`. */
export function contentDisposition(name: string, type: string): string {
  const disposition = isInlineSafe(type) ? 'inline' : 'attachment';
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

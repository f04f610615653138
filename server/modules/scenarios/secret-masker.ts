// Hiding secret values in what an execution stores: every form a value takes on its way out
// (`secretForms`), matched whatever its letter case, punycoded host labels that spell one, and a
// cut that never leaves a secret's first characters behind (`maskThenCut`).
import { domainToUnicode } from 'node:url';
import { secretForms } from './templates.js';

/** What hides secret values: `text` replaces each one (in every form of `secretForms`, in any
 *  letter case) by `***` inside a string; `scalar` turns a number or boolean whose text is a
 *  secret into `***`. */
export interface SecretMasker {
  /** False when there is nothing to hide (no secrets). */
  readonly active: boolean;
  /** UTF-8 bytes of the longest form of a secret (what must be read past a cut to see it whole). */
  readonly longestBytes: number;
  text(s: string): string;
  scalar(v: number | boolean): unknown;
  /** Length of the longest end of `s` that begins some form of a secret (0 if none). */
  partialTail(s: string): number;
}

const MASK = '***';
/** JSON number text, as a secret might be echoed back as a number. */
const NUMBER_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
/** A punycoded host label (IDNA): the URL parser writes a non-ASCII host name this way. */
const PUNYCODE_LABEL = /xn--[a-z0-9-]+/gi;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function secretMasker(secrets: Iterable<string>): SecretMasker {
  const values = [...new Set(secrets)].filter((s) => s.length > 0);
  // Longer needles first, so that one secret containing another is fully hidden.
  const needles = [...new Set(values.flatMap(secretForms))]
    .filter((s) => s.length > 0)
    .sort((a, b) => b.length - a.length);
  const scalars = new Set(values);
  const numbers = new Set(values.filter((s) => NUMBER_TEXT.test(s)).map(Number).filter(Number.isFinite));
  const pattern = needles.length ? new RegExp(needles.map(escapeRegExp).join('|'), 'gi') : undefined;
  const lowered = values.map((v) => v.toLowerCase());
  const lowerNeedles = [...new Set(needles.map((n) => n.toLowerCase()))];
  const longestBytes = needles.reduce((max, n) => Math.max(max, Buffer.byteLength(n)), 0);

  const text = (s: string): string => {
    if (!pattern) return s;
    let out = s.replace(pattern, MASK);
    // A host label holding a secret is punycoded as a whole (`api-é.example` → `xn--api--bsa`):
    // decoded, the label shows whether it spells one.
    if (out.includes('xn--') || out.includes('XN--')) {
      out = out.replace(PUNYCODE_LABEL, (label) => {
        const decoded = domainToUnicode(label).toLowerCase();
        return decoded && lowered.some((v) => decoded.includes(v)) ? MASK : label;
      });
    }
    return out;
  };

  return {
    active: needles.length > 0,
    longestBytes,
    text,
    scalar: (v) => (scalars.has(String(v)) || (typeof v === 'number' && numbers.has(v)) ? MASK : v),
    partialTail: (s) => {
      const window = Math.min(s.length, Math.max(0, ...lowerNeedles.map((n) => n.length - 1)));
      if (window === 0) return 0;
      const tail = s.slice(s.length - window);
      const lower = tail.toLowerCase();
      const k = Math.max(0, ...lowerNeedles.map((n) => longestPrefixAtEnd(n, lower)));
      // Lower-casing changed the length (a rare letter): drop the whole window to be safe.
      return k > 0 && lower.length !== tail.length ? window : k;
    },
  };
}

/** Masks `text`, then keeps at most `limitBytes` UTF-8 bytes of it. `readWasCut`: the text is
 *  itself the start of something longer, so its end may hold the first characters of a secret
 *  whose rest was never read; that end is dropped before masking. The caller reads at least
 *  `masker.longestBytes` past `limitBytes`, so every secret starting within the kept part was
 *  read whole and is masked. */
export function maskThenCut(text: string, masker: SecretMasker, limitBytes: number, readWasCut: boolean): string {
  let s = text;
  if (readWasCut) {
    const partial = masker.partialTail(s);
    if (partial > 0) s = s.slice(0, s.length - partial);
  }
  const masked = masker.text(s);
  const bytes = Buffer.from(masked, 'utf8');
  if (bytes.length <= limitBytes) return masked;
  // Cut on a character boundary: drop continuation bytes of a character split at the limit.
  let end = limitBytes;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/** The longest k < needle.length such that `text` ends with the first k characters of `needle`
 *  (Knuth-Morris-Pratt over the text, linear in both lengths). */
function longestPrefixAtEnd(needle: string, text: string): number {
  if (needle.length < 2 || !text) return 0;
  const fail = new Array<number>(needle.length).fill(0);
  for (let i = 1, k = 0; i < needle.length; i++) {
    while (k > 0 && needle[i] !== needle[k]) k = fail[k - 1];
    if (needle[i] === needle[k]) k++;
    fail[i] = k;
  }
  let k = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    while (k > 0 && (k === needle.length || needle[k] !== c)) k = fail[k - 1];
    if (needle[k] === c) k++;
  }
  return k === needle.length ? 0 : k;
}

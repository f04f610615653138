// The repository's docs and comments stand alone: a reader who has only this repository can
// follow every pointer in them. So no line points at a numbered section of a document that is
// not here, or at a numbered issue of a tracker, and every relative link in the Markdown pages
// reaches a file (and, with a #fragment, a heading of that page) that exists.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SELF = fileURLToPath(import.meta.url);
const SKIP = new Set(['node_modules', 'dist', 'release', 'test-results', 'playwright-report', '.git']);

function files(dir: string, keep: (name: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  if (statSync(dir).isFile()) return [dir];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? files(path, keep) : keep(e.name) ? [path] : [];
  });
}

const TEXT = /\.(ts|tsx|mts|cts|js|mjs|cjs|md|css|html|json|yml|yaml|sh)$/;
const SOURCES = ['server', 'renderer', 'electron', 'bench', 'docs', 'scripts', 'e2e', 'bin', 'README.md']
  .flatMap((p) => files(join(ROOT, p), (n) => TEXT.test(n)))
  .filter((f) => f !== SELF);

/** A section sign followed by a number (`§3`, `§ 2a`), a numbered issue (`issue 18`, `Issue #5`),
 *  or the name of the contract kept outside the repository (its rules are written out instead). */
const POINTER = /\u00a7\s*\d|\b[Ii]ssues?\s+#?\d|\bCONTRACT\b/;

describe('docs and comments stand alone', () => {
  it('finds the files it checks', () => {
    const rel = SOURCES.map((f) => relative(ROOT, f));
    expect(rel).toContain('README.md');
    expect(rel).toContain(join('docs', 'architecture.md'));
    expect(rel.filter((f) => f.startsWith('server')).length).toBeGreaterThan(100);
    expect(POINTER.test('see issue 18')).toBe(true);
    expect(POINTER.test('(\u00a72a)')).toBe(true);
    expect(POINTER.test(['see', 'CONTRACT'].join(' '))).toBe(true);
    expect(POINTER.test('the contract\'s error shape; a validation issue')).toBe(false);
  });

  it('no line points at a numbered section or issue kept outside the repository', () => {
    const found: string[] = [];
    for (const file of SOURCES) {
      readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        if (POINTER.test(line)) found.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(found).toEqual([]);
  });
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces made hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase()
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown page: one per heading (a repeated one gets -1, -2, ...), and any `<a id>`. */
function anchors(text: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = slug(h[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n ? `${base}-${n}` : base);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]);
  }
  return out;
}

/** The relative links of a Markdown page, outside code: `[text](target)`. */
function links(text: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, mailto:, ...
      out.push(target);
    }
  }
  return out;
}

describe('links between the docs', () => {
  const pages = [join(ROOT, 'README.md'), ...files(join(ROOT, 'docs'), (n) => n.endsWith('.md')), ...files(join(ROOT, 'renderer', 'README.md'), () => true)];

  it('finds pages with links', () => {
    expect(pages.length).toBeGreaterThan(10);
    expect(links('see [the page](docs/a.md#b), `[not](code.md)` and [web](https://example.com)')).toEqual(['docs/a.md#b']);
    expect(slug('Outbox: waiting for an email')).toBe('outbox-waiting-for-an-email');
    expect(slug('Test helpers: `homebase/testing`')).toBe('test-helpers-homebasetesting');
  });

  it('every relative link reaches a file, and a #fragment a heading of it', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const target of links(readFileSync(page, 'utf8'))) {
        const [path, fragment] = target.split('#');
        const file = path ? resolve(dirname(page), decodeURIComponent(path)) : page;
        const where = `${relative(ROOT, page)} → ${target}`;
        if (!existsSync(file)) { broken.push(`${where}: no such file`); continue; }
        if (fragment && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(fragment)) broken.push(`${where}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });
});

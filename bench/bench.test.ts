// Smoke run of the benchmark (part of npm test): tiny data sets and sub-second runs, Homebase
// from its sources. Asserts that every figure is produced, never how fast anything is.
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseOptions } from './lib/options.js';
import { runBench } from './lib/suite.js';
import { checkTargets, toMarkdown, toText, writeResults } from './lib/report.js';
import { OPS } from './lib/operations.js';

describe('npm run bench (smoke)', () => {
  it('measures every target and writes the table', async () => {
    const out = await mkdtemp(join(tmpdir(), 'hb-bench-smoke-'));
    try {
      const options = parseOptions(['--sizes', '300', '--create-sizes', '300', '--start-size', '300', '--start-runs', '2', '--restore-size', '0',
        '--warmup', '0', '--duration', '0.25', '--repeats', '2', '--connections', '4', '--source', '--no-console', '--quiet'], {});
      const results = await runBench(options);
      for (const size of [300]) {
        for (const op of OPS) {
          for (const kind of ['bare', 'json-server'] as const) {
            const f = results.ops[size]?.[op]?.[kind];
            expect(f, `${kind} ${op} @ ${size}`).toBeDefined();
            expect(f!.runs).toHaveLength(2);
            expect(f!.median).toBeGreaterThan(0);
          }
        }
      }
      expect(results.notes.filter((n) => n.startsWith('Homebase not measured'))).toEqual([]);
      {
        for (const op of OPS) expect(results.ops[300]?.[op]?.homebase?.median, `homebase ${op}`).toBeGreaterThan(0);
        expect(results.createSeries.map((c) => c.size)).toEqual([300]);
        expect(results.start.emptyMs).toBeGreaterThan(0);
        expect(results.start.loadedMs).toBeGreaterThan(0);
        expect(results.start.emptyRecordsMs).toBeGreaterThan(0);
        expect(results.start.loadedRecordsMs).toBeGreaterThan(0);
        expect(results.start.runs).toHaveLength(2);
        expect(results.start.pageAfterAnswerMs).toBeGreaterThanOrEqual(0);
        expect(results.rss.afterLoadMb).toBeGreaterThan(0);
        const gql = results.extra.graphql as { ratio: number; graphql: { median: number }; rest: { median: number } } | undefined;
        expect(gql?.graphql.median, 'GraphQL list of 50').toBeGreaterThan(0);
        expect(gql?.rest.median, 'REST list of 50').toBeGreaterThan(0);
        expect(checkTargets(results).find((t) => t.target.startsWith('GraphQL list of 50'))?.ok).toBeDefined();
        expect(checkTargets(results).every((t) => t.ok !== undefined)).toBe(true);
      }
      expect(toText(results)).toContain('GET by id');
      const files = await writeResults(results, out);
      expect(files.every((f) => existsSync(f))).toBe(true);
      expect(await readFile(join(out, 'latest.md'), 'utf8')).toBe(toMarkdown(results));
      expect(JSON.parse(await readFile(join(out, 'latest.json'), 'utf8')).machine.nproc).toBeGreaterThan(0);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 180_000);
});

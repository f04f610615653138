// `npm run bench`: runs the comparison (see docs/performance.md), prints the table and writes
// bench/results/latest.json + latest.md (and a timestamped copy of each).
import { parseOptions, USAGE } from './lib/options.js';
import { runBench } from './lib/suite.js';
import { toText, writeResults } from './lib/report.js';

async function main() {
  const options = parseOptions(process.argv.slice(2));
  if (options.help) { process.stdout.write(USAGE + '\n'); return; }
  const results = await runBench(options);
  process.stdout.write('\n' + toText(results));
  if (options.outDir) {
    const files = await writeResults(results, options.outDir);
    process.stdout.write(`\nWritten: ${files.slice(0, 2).join(', ')}\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});

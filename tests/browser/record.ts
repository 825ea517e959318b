/**
 * Records the browser truth of CSP (`npm run csp-truth`): generates the cases, observes each in
 * Chromium and Firefox, and writes tests/fixtures/csp-browser-truth.json with the browsers'
 * versions, formatted as the repository's Prettier settings say. Prints the counts per class and
 * where the browsers disagree.
 */

import { writeFileSync } from 'node:fs';
import * as prettier from 'prettier';
import { BROWSER_NAMES, requireBrowsers } from './browsers';
import { TRUTH_SEED, generateCases } from './cases';
import { TruthServer } from './server';
import { observeInBothBrowsers } from './run';
import { TRUTH_FILE, type RecordedCase, type TruthFile } from './truth';

/** A table of counts per class: cases, each verdict of each browser, disagreements. */
function summary(cases: readonly RecordedCase[]): string {
  const rows = new Map<string, Map<string, number>>();
  const count = (row: string, column: string) => {
    const counts = rows.get(row) ?? new Map<string, number>();
    counts.set(column, (counts.get(column) ?? 0) + 1);
    rows.set(row, counts);
  };
  for (const entry of cases) {
    for (const row of [entry.class, 'all']) {
      count(row, 'cases');
      for (const name of BROWSER_NAMES) {
        count(row, `${name}:${entry[name]}`);
      }
      if (entry.chromium !== entry.firefox) {
        count(row, 'disagree');
      }
    }
  }
  return [...rows]
    .map(([row, counts]) => `${row}: ${[...counts].map(([column, value]) => `${column}=${value}`).join(' ')}`)
    .join('\n');
}

async function main(): Promise<void> {
  requireBrowsers();
  const started = Date.now();
  const cases = generateCases(TRUTH_SEED);
  const server = await TruthServer.start();
  let runs;
  try {
    let lastShown = 0;
    runs = await observeInBothBrowsers(server, cases, (name, done, total) => {
      if (Date.now() - lastShown > 10_000 || done === total) {
        lastShown = Date.now();
        console.error(`csp-truth: ${name} ${done}/${total} pages`);
      }
    });
  } finally {
    await server.close();
  }
  const recorded: RecordedCase[] = cases.map((entry) => ({
    ...entry,
    chromium: runs.chromium.verdicts.get(entry.id)!,
    firefox: runs.firefox.verdicts.get(entry.id)!,
  }));
  const truth: TruthFile = {
    generator: 'tests/browser/cases.ts',
    seed: TRUTH_SEED,
    recordedAt: new Date().toISOString(),
    browsers: { chromium: runs.chromium.version, firefox: runs.firefox.version },
    cases: recorded,
  };
  const options = await prettier.resolveConfig(TRUTH_FILE);
  writeFileSync(TRUTH_FILE, await prettier.format(JSON.stringify(truth), { ...options, filepath: TRUTH_FILE }));
  console.log(summary(recorded));
  console.log(
    `csp-truth: ${recorded.length} cases in ${((Date.now() - started) / 1000).toFixed(0)} s with ` +
      `${truth.browsers.chromium} and ${truth.browsers.firefox}, written to ${TRUTH_FILE}`,
  );
}

main().catch((error: unknown) => {
  console.error(`csp-truth: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

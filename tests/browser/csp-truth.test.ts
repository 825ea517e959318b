/**
 * The recorded browser truth of CSP still holds: the generator still makes the recorded cases, and
 * Chromium and Firefox, as installed here, still give the recorded verdicts on a sample of them
 * taken from every class (and from the cases where the two browsers disagree). The browsers are
 * required: without them this fails saying how to install them, it never skips.
 */

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BROWSER_NAMES, requireBrowsers } from './browsers';
import { generateCases, type TruthCase } from './cases';
import type { RunsJson } from './run';
import { TRUTH_FILE, groupIntoPages, type RecordedCase, type TruthFile } from './truth';

// Both browsers start, then load about 120 pages each, on two cores shared with other test files.
jest.setTimeout(240_000);

/**
 * The observing script as `npm test` builds it before jest runs (jest itself cannot load
 * puppeteer-core, an ES module, without an experimental flag).
 */
const RUN_SCRIPT = path.resolve(__dirname, '..', '..', 'dist', 'tests', 'browser', 'run.js');

/** Observes the cases in both browsers through {@link RUN_SCRIPT}. */
function observe(cases: readonly TruthCase[]): RunsJson {
  if (!existsSync(RUN_SCRIPT)) {
    throw new Error(`${RUN_SCRIPT} is missing: build first (npm run build, which npm test runs)`);
  }
  const child = spawnSync(process.execPath, [RUN_SCRIPT], {
    input: JSON.stringify(cases),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    // Below the test's own timeout, which cannot fire while this call blocks.
    timeout: 220_000,
  });
  if (child.status !== 0) {
    throw new Error(`${RUN_SCRIPT} failed (${child.error?.message ?? `exit ${child.status}`}): ${child.stderr}`);
  }
  return JSON.parse(child.stdout) as RunsJson;
}

/** Cases taken from each sampled page. */
const CASES_PER_PAGE = 5;
/** Cases where the two browsers disagree, taken from each class beside the pages above. */
const DISAGREEMENTS_PER_CLASS = 2;

/**
 * A deterministic sample across every class: the class's first page and the one halfway through
 * its pages, up to {@link CASES_PER_PAGE} cases of each, and its first disagreements.
 */
function sample(cases: readonly RecordedCase[]): RecordedCase[] {
  const byClass = new Map<string, RecordedCase[]>();
  for (const entry of cases) {
    byClass.set(entry.class, [...(byClass.get(entry.class) ?? []), entry]);
  }
  const picked = new Set<RecordedCase>();
  for (const members of byClass.values()) {
    const pages = groupIntoPages(members) as RecordedCase[][];
    for (const page of [pages[0]!, pages[Math.floor(pages.length / 2)]!]) {
      page.slice(0, CASES_PER_PAGE).forEach((entry) => picked.add(entry));
    }
    members
      .filter((entry) => entry.chromium !== entry.firefox)
      .slice(0, DISAGREEMENTS_PER_CLASS)
      .forEach((entry) => picked.add(entry));
  }
  return cases.filter((entry) => picked.has(entry));
}

function describeCase(entry: TruthCase): string {
  const reportOnly = entry.reportOnly.length > 0 ? ` report-only ${JSON.stringify(entry.reportOnly)}` : '';
  return `${entry.id} [${entry.class}] ${entry.kind} ${entry.url} from ${entry.page} under ${JSON.stringify(entry.policies)}${reportOnly}`;
}

const truth = JSON.parse(readFileSync(TRUTH_FILE, 'utf8')) as TruthFile;

test('the generator makes exactly the recorded cases', () => {
  const recorded = truth.cases.map(({ chromium: _chromium, firefox: _firefox, ...entry }): TruthCase => entry);
  expect(generateCases(truth.seed)).toEqual(recorded);
});

test('Chromium and Firefox give the recorded verdicts on a sample of every class', () => {
  requireBrowsers();
  const cases = sample(truth.cases);
  const classes = new Set(truth.cases.map((entry) => entry.class));
  expect(new Set(cases.map((entry) => entry.class))).toEqual(classes);

  const runs = observe(cases);
  const differences: string[] = [];
  for (const entry of cases) {
    for (const name of BROWSER_NAMES) {
      const now = runs[name].verdicts[entry.id];
      if (now !== entry[name]) {
        differences.push(`${describeCase(entry)}: ${name} recorded ${entry[name]}, now ${now}`);
      }
    }
  }
  if (differences.length > 0) {
    const versions = BROWSER_NAMES.map((name) => `${name} ${runs[name].version} (recorded: ${truth.browsers[name]})`);
    throw new Error(
      `${differences.length} verdict(s) of ${cases.length} sampled cases differ from ${TRUTH_FILE} with ` +
        `${versions.join(', ')}; if a browser changed what it does, re-record with \`npm run csp-truth\` ` +
        `and bring the judgement (rules/csp-match.ts) along:\n${differences.join('\n')}`,
    );
  }
});

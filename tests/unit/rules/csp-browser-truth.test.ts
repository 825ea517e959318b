import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseCspValue, type CspDirective } from '../../../rules/csp';
import {
  BROWSERS,
  judgeFetch,
  type Browser,
  type CspFetchKind,
  type FetchOutcome,
  type PageHeader,
} from '../../../rules/csp-match';

/**
 * The judgement held to what real browsers did: the recorded truth (tests/browser/ records it; the
 * format is in tests/browser/truth.ts) gives, for each generated case, the outcome in Chromium and
 * in Firefox. Every case where the two agree must get their outcome from the judgement of each
 * browser; every case where they differ must get each browser's own outcome from its judgement.
 */

const TRUTH_FILE = path.join(__dirname, '..', '..', 'fixtures', 'csp-browser-truth.json');

interface TruthCase {
  id: string;
  class: string;
  page: string;
  policies: string[];
  reportOnly: string[];
  kind: CspFetchKind;
  url: string;
  chromium: FetchOutcome;
  firefox: FetchOutcome;
}

interface Truth {
  browsers: Record<Browser, string>;
  cases: TruthCase[];
}

const truth = JSON.parse(fs.readFileSync(TRUTH_FILE, 'utf8')) as Truth;

/** The problem the service's grammar finds in each policy of `entry` it refuses. */
function refusals(entry: TruthCase): string[] {
  return [...entry.policies, ...entry.reportOnly].flatMap((value) => {
    const result = parseCspValue(value);
    return result.ok ? [] : [`${entry.id} (${entry.class}): ${JSON.stringify(value)}: ${result.error.message}`];
  });
}

function parsed(value: string): CspDirective[] {
  const result = parseCspValue(value);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

function headersOf(entry: TruthCase): PageHeader[] {
  return [
    ...entry.policies.map((value) => ({ directives: parsed(value), reportOnly: false })),
    ...entry.reportOnly.map((value) => ({ directives: parsed(value), reportOnly: true })),
  ];
}

function judged(entry: TruthCase, browser: Browser): FetchOutcome {
  return judgeFetch(headersOf(entry), entry.kind, new URL(entry.url), new URL(entry.page), browser).outcome;
}

/** Each browser whose judgement of `entry` is not its recorded outcome, described for the failure message. */
function misjudged(entry: TruthCase): string[] {
  return BROWSERS.flatMap((browser) => {
    const outcome = judged(entry, browser);
    if (outcome === entry[browser]) return [];
    const reportOnly = entry.reportOnly.length > 0 ? ` report-only ${JSON.stringify(entry.reportOnly)}` : '';
    return [
      `${entry.id} (${entry.class}) ${browser}: recorded ${entry[browser]}, judged ${outcome}: ` +
        `${entry.kind} ${entry.url} from ${entry.page} under ${JSON.stringify(entry.policies)}${reportOnly}`,
    ];
  });
}

const agreed = truth.cases.filter((entry) => entry.chromium === entry.firefox);
const differing = truth.cases.filter((entry) => entry.chromium !== entry.firefox);

describe(`the judgement against the recorded browsers (Chromium ${truth.browsers.chromium}, Firefox ${truth.browsers.firefox})`, () => {
  test('the truth names both browsers and holds at least 2,000 cases, every one of a known kind and outcome', () => {
    expect(truth.browsers.chromium).toMatch(/\d/);
    expect(truth.browsers.firefox).toMatch(/\d/);
    expect(truth.cases.length).toBeGreaterThanOrEqual(2000);
    const outcomes: FetchOutcome[] = ['allowed', 'reported', 'blocked', 'mixed-content'];
    for (const entry of truth.cases) {
      expect(['script', 'connection']).toContain(entry.kind);
      expect(outcomes).toContain(entry.chromium);
      expect(outcomes).toContain(entry.firefox);
    }
  });

  // The judgement takes parsed policies, and the review judges only what the service accepts: a
  // recorded policy the grammar refuses would be a case no user can reach.
  test('every recorded policy is one the service accepts', () => {
    expect(truth.cases.flatMap(refusals)).toEqual([]);
  });

  test(`every case where the two browsers agree (${agreed.length}) gets their outcome in both judgements`, () => {
    expect(agreed.flatMap(misjudged)).toEqual([]);
  });

  test(`every case where they differ (${differing.length}) gets each browser's own outcome`, () => {
    expect(differing.flatMap(misjudged)).toEqual([]);
  });
});

import * as path from 'node:path';
import { REPO } from '../../helpers/repo';

/**
 * The order jest starts files in (scripts/jest-sequencer.js): the engine's first, the issuance
 * limit's before them, unless jest has the timings of every file; with only some (a run of a few
 * files on the same clone), files by tier still, not jest's "untimed first, by size".
 */

// eslint-disable-next-line @typescript-eslint/no-require-imports
const TierSequencer = require(path.join(REPO, 'scripts', 'jest-sequencer.js')) as new (options: object) => {
  sort(tests: FakeTest[]): FakeTest[];
  time(test: FakeTest): number | undefined;
};

interface FakeTest {
  path: string;
  duration?: number;
  context: { config: { cache: boolean; rootDir: string }; hasteFS: { getSize(file: string): number } };
}

/** Files with their sizes, as jest's file system knows them, and the timings of an earlier run. */
function sequence(files: Record<string, number>, timings: Record<string, number>): string[] {
  const context = {
    config: { cache: false, rootDir: REPO },
    hasteFS: { getSize: (file: string) => files[path.relative(REPO, file)] ?? 0 },
  };
  class Timed extends TierSequencer {
    // What jest reads from its cache of the earlier run.
    override time(test: FakeTest) {
      return timings[path.relative(REPO, test.path)];
    }
  }
  const tests = Object.keys(files).map((file) => ({ path: path.join(REPO, file), context }));
  return new Timed({}).sort(tests).map((test) => path.relative(REPO, test.path));
}

const FILES = {
  'tests/unit/rules/csp.test.ts': 9_000,
  'tests/service/bad-input/bad-input.test.ts': 30_000,
  'tests/engine/review/csp-review.test.ts': 20_000,
  'tests/engine/faults/issuance-limit.test.ts': 7_000,
  'tests/browser/probe.test.ts': 12_000,
};

test('no timings: the issuance limit, the engine, the browsers, the service, the unit tests', () => {
  expect(sequence(FILES, {})).toEqual([
    'tests/engine/faults/issuance-limit.test.ts',
    'tests/engine/review/csp-review.test.ts',
    'tests/browser/probe.test.ts',
    'tests/service/bad-input/bad-input.test.ts',
    'tests/unit/rules/csp.test.ts',
  ]);
});

test('timings of some files only: by tier still, not the untimed files first by size', () => {
  expect(sequence(FILES, { 'tests/unit/rules/csp.test.ts': 7_800 })).toEqual([
    'tests/engine/faults/issuance-limit.test.ts',
    'tests/engine/review/csp-review.test.ts',
    'tests/browser/probe.test.ts',
    'tests/service/bad-input/bad-input.test.ts',
    'tests/unit/rules/csp.test.ts',
  ]);
});

test('timings of every file: jest’s own order, the longest first', () => {
  const timings = {
    'tests/unit/rules/csp.test.ts': 7_800,
    'tests/service/bad-input/bad-input.test.ts': 18_000,
    'tests/engine/review/csp-review.test.ts': 203_000,
    'tests/engine/faults/issuance-limit.test.ts': 215_000,
    'tests/browser/probe.test.ts': 107_000,
  };
  expect(sequence(FILES, timings)).toEqual([
    'tests/engine/faults/issuance-limit.test.ts',
    'tests/engine/review/csp-review.test.ts',
    'tests/browser/probe.test.ts',
    'tests/service/bad-input/bad-input.test.ts',
    'tests/unit/rules/csp.test.ts',
  ]);
});

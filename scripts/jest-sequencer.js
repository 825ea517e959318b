// The order jest starts test files in (jest.config.js's `testSequencer`). With the timings of an
// earlier run of every file in its cache, jest's own: the files that failed, then the longest
// first. Without them (a fresh clone, a fresh CI runner; or timings of some files only, from a run
// of a few, which jest would start first), jest orders by file size alone, and a small file that mostly
// waits (the issuance limit's, minutes of 60 s windows by design) may start last and hold the run
// up alone at its end. Here the files without timings start by tier instead, the engine's first
// (minutes each, mostly waiting on the engine), then the browsers', the service's and the unit
// tests (seconds), each tier's longest known waiter first, then by size as jest does.
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/** The tiers of tests/, the slowest first. */
const TIERS = ['engine', 'browser', 'service', 'unit'];
/** Files known to wait longest, started before the rest of their tier (paths from the repository). */
const LONGEST = ['tests/engine/faults/issuance-limit.test.ts'];

class TierSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    if (sorted.every((test) => test.duration != null)) return sorted;
    const rank = (test) => {
      const relative = path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/');
      const tier = TIERS.indexOf(relative.split('/')[1] ?? '');
      return (tier < 0 ? TIERS.length : tier) * 2 + (LONGEST.includes(relative) ? 0 : 1);
    };
    // Stable: within a rank, jest's order by size stays.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = TierSequencer;

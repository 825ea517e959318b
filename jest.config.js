/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // Type checking is `tsc`'s job in `npm test`; jest only strips types.
    '^.+\\.ts$': 'ts-jest',
  },
  // A test that waits on a busy machine (three files at a time on two cores, below) is given a minute.
  testTimeout: 60000,
  // Three files at a time on two cores: the longest file (custom hostname issuance, 3.5 minutes)
  // mostly waits out the service's 60 s windows, and the engine files wait on the engine; with two,
  // the cores stood idle a sixth of the run (npm test: 869 s, 1,448 s of CPU; with three, 812 s).
  maxWorkers: 3,
  // On a fresh clone (no timings of an earlier run), the engine's files first, the longest waiter
  // of all first among them: scripts/jest-sequencer.js.
  testSequencer: '<rootDir>/scripts/jest-sequencer.js',
};

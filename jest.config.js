/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // Type checking is `tsc`'s job in `npm test`; jest only strips types.
    '^.+\\.ts$': 'ts-jest',
  },
  // A test that waits on a busy machine (four files at a time on two cores, below) is given a minute.
  testTimeout: 60000,
  // Four files at a time on two cores. Some files mostly wait: custom hostname issuance (3.5
  // minutes, 25 s of CPU) waits out the service's 60 s windows, the probes (3 minutes, 80 s of CPU)
  // wait for pages to settle, the API limit's files for its windows. With three at a time, a fresh
  // clone's jest took 1,002 s for 1,698 s of CPU: 1.7 of the two cores, while the files kept three
  // workers busy 95% of the time (2,852 s of their wall times together). With two, the cores stood
  // idle a sixth of the run (an earlier suite: 869 s, 1,448 s of CPU; with three, 812 s).
  maxWorkers: 4,
  // On a fresh clone (no timings of an earlier run), the engine's files first, the longest waiter
  // of all first among them: scripts/jest-sequencer.js.
  testSequencer: '<rootDir>/scripts/jest-sequencer.js',
};

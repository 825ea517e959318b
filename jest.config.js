/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // Types stripped by esbuild (ts-jest for a file that hoists `jest.mock`): scripts/jest-transform.js.
    '^.+\\.ts$': '<rootDir>/scripts/jest-transform.js',
  },
  // A test that waits on a busy machine (three files at a time on two cores, below) is given a minute.
  testTimeout: 60000,
  // Three files at a time on two cores. With three, the cores are full from start to end: a quiet
  // fresh clone's jest (997 s) left them idle 36 core-seconds of 1,994 (vmstat), so only less CPU
  // makes it quicker. Four did not help: 1,053 s against 1,002 s, and more CPU (2,102 s for the
  // whole npm test against 1,969 s), the files contending for the cores. With two, the cores stood
  // idle a sixth of the run, while files that mostly wait (issuance windows, the API limit's
  // windows) held a worker (an earlier suite: 869 s, 1,448 s of CPU; with three, 812 s).
  maxWorkers: 3,
  // On a fresh clone (no timings of an earlier run), the engine's files first, the longest waiter
  // of all first among them: scripts/jest-sequencer.js.
  testSequencer: '<rootDir>/scripts/jest-sequencer.js',
};

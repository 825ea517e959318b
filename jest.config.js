/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // Type checking is `tsc`'s job in `npm test`; jest only strips types.
    '^.+\\.ts$': 'ts-jest',
  },
  testTimeout: 30000,
  // Two files at a time even on two cores: the longest files (custom hostname issuance) mostly wait
  // out the service's 60 s windows, and the rest runs meanwhile.
  maxWorkers: 2,
};

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
};

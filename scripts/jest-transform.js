// How jest turns a TypeScript file into the CommonJS it runs (jest.config.js's `transform`).
// Type checking is `tsc`'s job in `npm test` (and ESLint's, type-aware, beside it); jest only strips
// the types. esbuild does that in about a hundredth of the time TypeScript's `transpileModule` takes
// (ts-jest), which on a fresh clone (every CI run: jest's cache is keyed by the files' paths)
// compiled each of the suite's files and the sources they load again.
//
// The one thing esbuild does not do is jest's: a `jest.mock(...)` call must run before the file's
// imports, and ts-jest (like babel-jest) hoists it above them. A file that calls `jest.mock` goes
// through ts-jest, unchanged; every other file through esbuild.
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const { transformSync, version: esbuildVersion } = require('esbuild');
const { TsJestTransformer } = require('ts-jest');

/** What esbuild is told of the project's compiler options: what changes the JavaScript it writes. */
const TSCONFIG_RAW = {
  compilerOptions: {
    // tsconfig.json's target (es2023) defines class fields with [[Define]], as esbuild does then.
    useDefineForClassFields: true,
    // tsconfig.json's esModuleInterop: a default import of a CommonJS module is its `module.exports`.
    esModuleInterop: true,
  },
};
/** A file that hoisting matters to: a call of `jest.mock` (not `jest.doMock`, which is never hoisted). */
const HOISTED = /\bjest\.mock\(/;

const tsJest = new TsJestTransformer();
const self = fs.readFileSync(__filename);

module.exports = {
  getCacheKey(source, filePath, options) {
    if (HOISTED.test(source)) return `ts-jest:${tsJest.getCacheKey(source, filePath, options)}`;
    return createHash('sha256')
      .update(self)
      .update(esbuildVersion)
      .update('\0')
      .update(filePath)
      .update('\0')
      .update(source)
      .digest('hex');
  },
  process(source, filePath, options) {
    if (HOISTED.test(source)) return tsJest.process(source, filePath, options);
    const { code, map } = transformSync(source, {
      loader: 'ts',
      format: 'cjs',
      target: 'node22',
      platform: 'node',
      sourcemap: 'external',
      sourcefile: filePath,
      tsconfigRaw: TSCONFIG_RAW,
    });
    return { code, map };
  },
};

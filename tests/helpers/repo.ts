import * as path from 'node:path';

/**
 * The repository's root, for paths to its files (sources, scripts, `dist/`, fixtures). Apart from
 * tests/helpers/engine.ts so that a test that only reads the repository loads no engine code.
 */
export const REPO = path.resolve(__dirname, '..', '..');

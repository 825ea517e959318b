// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * ESLint with typescript-eslint's recommended type-checked rules over every TypeScript file of
 * the repository; `npm test` fails on any error. Style is Prettier's (.prettierrc.json), not ESLint's.
 */
export default tseslint.config(
  { ignores: ['dist/', 'coverage/', '.tools/', '.edgeguard/', 'node_modules/', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  },
);

// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * ESLint with typescript-eslint's recommended type-checked rules over every TypeScript file of
 * the repository; `npm test` fails on any error. Style is Prettier's (.prettierrc.json), not ESLint's.
 */
export default tseslint.config(
  { ignores: ['dist/', 'coverage/', '.tools/', '.edgeguard/', 'node_modules/', 'sdk/', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    // One program of tsconfig.json for every file, not the project service: the lint's CPU went from
    // 61, 61 and 58 s to 46, 43 and 45 s (a fresh clone, `eslint .`). A TypeScript file outside
    // tsconfig.json's `include` is an error that names it.
    languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A leading underscore marks a value left out on purpose (a destructured field dropped, a
      // parameter an interface requires).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // An `async` function is the plain way to meet an async interface (a fastify hook, a provider
      // method, a test double) even when its body happens not to wait for anything.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests read the service's JSON replies and the engine's state as they come, untyped, and check
    // their shape with `expect`, which is the assertion that matters there; typing every reply
    // would only restate the emulator's schemas. Everything shipped keeps these rules.
    files: ['tests/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);

import { defineConfig } from 'vitest/config';

/**
 * The test set of `npm run mutate` (stryker.config.mjs): the unit tests only. They are pure and
 * need no peer, so each mutant runs in milliseconds; the rules of the core files must be pinned
 * down there, not only by an integration test. Stryker narrows this set further to the tests
 * that import the mutated file (its vitest runner's related mode) and, per mutant, to the tests
 * that reach the mutated code (coverage per test). PRINTRELAY_MUTATE_TESTS (comma-separated
 * globs) narrows the set further, for a file whose static mutants would otherwise run many slow
 * tests that only pass through it (docs/testing.md).
 */
export default defineConfig({
  test: {
    include: process.env['PRINTRELAY_MUTATE_TESTS']?.split(',') ?? ['test/unit/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { PRINTRELAY_CONTROL__PORT: '0' },
    reporters: ['default'],
  },
});

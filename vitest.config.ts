import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Agents started by tests (in-process or as child processes) take a free control port
    // instead of all fighting over the default 9631; tests of the default pass their own env.
    env: { PRINTRELAY_CONTROL__PORT: '0' },
    reporters: ['default'],
  },
});

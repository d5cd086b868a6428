/**
 * The fault proofs that are run on demand (`npm run proofs`) and not by `npm test`:
 * see the file comment of each proof for why and what it shows.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/proofs/**/*.proof.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
    env: { PRINTRELAY_CONTROL__PORT: '0' },
    reporters: ['default'],
  },
});

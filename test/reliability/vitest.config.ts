// The reliability suites (chaos, fuzz, soak): long runs kept out of `npm test`, each started by its own npm script.
// Invariant: a suite's files end in `.suite.ts`; PERPBOT_PROFILE (short | full, default full) picks its size.

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/reliability/**/*.suite.ts'],
    testTimeout: 4 * 60 * 60 * 1000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});

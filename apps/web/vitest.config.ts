import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['../../libs/db/src/testing/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

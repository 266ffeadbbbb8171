import { defineConfig } from 'vitest/config';

// `test` runs the quick end-to-end flows; the slow fault and hostile-input suites run with `faults`.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    exclude: ['src/**/*.slow.test.ts', '**/node_modules/**'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});

import { defineConfig } from 'vitest/config';

// `test` runs the quick end-to-end flows; the slow fault and hostile-input suites run with `faults`.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    exclude: ['src/**/*.slow.test.ts', '**/node_modules/**'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Two files at a time: each waits on its own npm start (processes, PostgreSQL, a browser) much of the
    // time, and `npm test` runs this project last, alone (it depends on every other), so one file at a
    // time left a core idle for its whole run.
    maxWorkers: 2,
  },
});

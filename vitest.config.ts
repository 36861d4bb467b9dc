import { defineConfig } from 'vitest/config';

// Unit tests sit beside the code, service tests in services/*/test, end-to-end tests in test/.
// Each file creates its own Postgres schemas and NATS subject prefix, so files run in parallel.
export default defineConfig({
  test: {
    include: ['libs/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts', 'services/*/test/**/*.test.ts', 'deploy/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-results.json' },
  },
});

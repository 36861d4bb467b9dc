import { defineConfig } from 'vitest/config';

/**
 * End-to-end files that also run against the default of `npm start`: the embedded database (one
 * session shared by every service) and the in-process bus. A transaction held across a call to
 * another service deadlocks only there, so enrollment, login, session and policy paths run on
 * both backends.
 */
const EMBEDDED_E2E = [
  'test/client/enrollment.test.ts',
  'test/client/token-enrollment.test.ts',
  'test/client/ca-enrollment.test.ts',
  'test/client/mfa.test.ts',
  'test/client/current-identity.test.ts',
  'test/client/session.test.ts',
  'test/client/sessions.test.ts',
  'test/client/services.test.ts',
  'test/client/held-renewal.test.ts',
  'test/management/policies.test.ts',
  'test/management/identity-list-holds.test.ts',
  'test/management/every-row.test.ts',
  'test/request-fuzz.test.ts',
];

// Unit tests sit beside the code, service tests in services/*/test, end-to-end tests in test/.
// Each file creates its own Postgres schemas and NATS subject prefix, so files run in parallel.
export default defineConfig({
  test: {
    exclude: ['**/node_modules/**', '**/dist/**'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-results.json' },
    projects: [
      {
        extends: true,
        test: {
          name: 'postgres',
          // Drops the schemas, streams and directories crashed runs left behind (hours old); once
          // per run, so in one project only.
          globalSetup: ['test/support/global-setup.ts'],
          include: ['libs/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts', 'services/*/test/**/*.test.ts', 'deploy/*/src/**/*.test.ts', 'test/**/*.test.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'embedded', include: EMBEDDED_E2E, env: { EDGE_TEST_BACKEND: 'embedded' } },
      },
    ],
  },
});

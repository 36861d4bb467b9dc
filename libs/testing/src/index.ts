/**
 * `@edge/testing`: helpers for end-to-end tests of the edge controller.
 *
 * - {@link loadSpecValidator}: checks responses against the official OpenZiti Edge API specs.
 * - {@link createHttpClient}: HTTPS client for a self-signed controller, validating responses.
 * - {@link startNatsServer}: a NATS server of the test's own, to stop and start again.
 * - {@link testPrefix}, {@link withTeardown}, {@link dropTestPrefix}, {@link sweepStaleTestPrefixes}:
 *   what a test creates in the shared Postgres and NATS, removed when it ends, fails half-way,
 *   or crashed in an earlier run.
 */
export {
  loadSpecValidator,
  locateSpecDir,
  EDGE_BASE_PATHS,
  EDGE_SPEC_DIR_ENV,
  type EdgeApi,
  type SpecOperation,
  type SpecValidator,
} from './spec-validator.js';
export {
  createHttpClient,
  edgeApiForPath,
  edgeApiPath,
  type HttpClient,
  type HttpClientOptions,
  type HttpMethodShorthand,
  type HttpRequestOptions,
  type HttpResult,
} from './http-client.js';
export { createSqlOnlyDb } from './sql-only-db.js';
export { createGate } from './gate.js';
export { seqScansOf } from './seq-scans.js';
export { freePort, freePortBlock } from './ports.js';
export { startNatsServer, type TestNatsServer } from './nats-server.js';
export { testPrefix, testPrefixTime, testPrefixOf } from './test-prefix.js';
export { createTeardown, withTeardown, type Teardown } from './teardown.js';
export {
  dropTestPrefix,
  isStaleTestStream,
  sweepStaleTestPrefixes,
  testPrefixRemains,
  STALE_AFTER_MS,
  TEST_DIR_PREFIX,
  type PrefixRemains,
  type SweepOptions,
  type SweepResult,
  type TestInfra,
} from './sweep.js';
export { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
export { createServiceInfra, TEST_DATABASE_URL, TEST_NATS_URL, type ServiceInfra } from './service-infra.js';

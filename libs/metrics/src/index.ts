/**
 * Prometheus metrics of a process: gRPC calls handled (libs/rpc records them), HTTP requests
 * (the gateway records them), authentication attempts, the build (`edge_build_info`, also what
 * `GET /version` answers) and Node process metrics, served on a
 * plain-HTTP `/metrics` endpoint (libs/lifecycle starts it when EDGE_METRICS_ADDR is set).
 */
export { processMetrics, recordAuthentication, secondsSince, UNMATCHED_ROUTE, type ProcessMetrics, type AuthenticationResult } from './registry.js';
export { buildInfo, VERSION, type BuildInfo } from './build-info.js';
export { startMetricsServer, type MetricsServer } from './server.js';

/**
 * Prometheus metrics of a process: gRPC calls handled (libs/rpc records them), HTTP requests
 * (the gateway records them), authentication attempts, and Node process metrics, served on a
 * plain-HTTP `/metrics` endpoint (libs/lifecycle starts it when EDGE_METRICS_ADDR is set).
 */
export { processMetrics, recordAuthentication, secondsSince, type ProcessMetrics, type AuthenticationResult } from './registry.js';
export { startMetricsServer, type MetricsServer } from './server.js';

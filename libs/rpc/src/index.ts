/**
 * gRPC between services: servers with health, error mapping and context propagation; clients
 * with deadlines, round-robin balancing and typed promise methods.
 */
export { runWithContext, currentContext, type RequestContext } from './context.js';
export { toServiceError, fromServiceError, ZITI_ERROR_KEY } from './errors.js';
export { createRpcServer, DEFAULT_MAX_CONNECTION_AGE_MS, type RpcServer, type RpcServerOptions, type AsyncHandlers } from './server.js';
export { createRpcClient, waitForHealthy, type RpcClient, type CallOptions } from './client.js';
export { stubHandlers } from './stub.js';

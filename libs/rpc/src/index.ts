/**
 * gRPC between services: servers with health, error mapping and context propagation; clients
 * with deadlines, round-robin balancing and typed promise methods; mutual TLS with certificates
 * from the controller's service CA (mesh-credentials.ts, join.ts).
 */
export { runWithContext, handleWithContext, withDeadline, detached, currentContext, type RequestContext } from './context.js';
export { toServiceError, fromServiceError, classifyHandlerError, answeredHandlerError, encodeZitiError, decodeZitiError, ZITI_ERROR_KEY } from './errors.js';
export { createRpcServer, DEFAULT_MAX_CONNECTION_AGE_MS, type RpcServer, type RpcServerOptions, type AsyncHandlers } from './server.js';
export { createRpcClient, waitForHealthy, outgoingDeadline, CHANNEL_OPTIONS, DEADLINE_MARGIN_MS, type RpcClient, type RpcClientOptions, type CallOptions } from './client.js';
export { createMeshCredentials, useMeshCredentials, processMeshCredentials, meshServerName, hasVerifiedPeer, MESH_DOMAIN, type MeshCredentials, type MeshCertificate, type Validity } from './mesh-credentials.js';
export { joinMesh, requestMeshCertificate, createMeshCsr, keepRenewed, JoinRefusedError, type JoinOptions, type JoinMeshOptions } from './join.js';
export { joinRequestMac, joinAnswerMac, macMatches, JOIN_CLOCK_SKEW_MS, type JoinRequestFields } from './join-mac.js';
export { localTarget, isLocalTarget, resolveTarget } from './local.js';
export { stubHandlers } from './stub.js';
export { assertBatchSize, createBatcher, contextOfMany, isUnimplemented, MAX_BATCH_ITEMS, orOneByOne, type BatcherOptions } from './batcher.js';
export { encodePrincipal, decodePrincipal, PRINCIPAL_KEY, type CallerPrincipal } from './principal.js';
export { peerClient, peerClients, type PeerName, type PeerClient, type PeerClients, type PeerTargets, type PeerClientOptions } from './peer-clients.js';
export { allPages, orMissing, isNotFound, everythingFrom, ALL_PAGES_LIMIT } from './peer-calls.js';

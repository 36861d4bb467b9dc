/**
 * Explicit lifecycle: start in order (migrate → db → bus → consumers → listen → healthy), stop
 * in reverse with a grace period, and the infrastructure every service process opens.
 */
export { runUntilSignal, createStack, type Runnable } from './run.js';
export { openBus, openInfra, serviceMain, type Infra, type ServiceContext, type EdgeService } from './infra.js';
export { createGrpcService, type SetupArgs, type Teardown } from './grpc-service.js';

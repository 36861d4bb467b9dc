/**
 * Explicit lifecycle: start in order (migrate → db → bus → consumers → listen → healthy), stop
 * in reverse with a grace period, and the infrastructure every service process opens (database,
 * bus, metrics endpoint).
 */
export { runUntilSignal, createStack, type Runnable } from './run.js';
export { openBus, openInfra, serviceMain, SERVICE_COMMANDS, type Infra, type ServiceContext, type EdgeService, type ServiceMainOptions } from './infra.js';
export { openDatabase } from './database.js';
export { runMigrations } from './migrate-only.js';
export { openMetricsEndpoint } from './metrics-endpoint.js';
export { createGrpcService, type SetupArgs, type Teardown, type GrpcServiceOptions } from './grpc-service.js';
export { runInBackground, type BackgroundOptions } from './background.js';
export { createServiceEvents, type ServiceEvents } from './service-events.js';
export { StartupError, explainListenFailure, connectFailure, describeStartupFailure, exitAfterFailedStart, loadConfigOrExit } from './startup-error.js';
export { meshCredentialsFor, joinServiceMesh, type JoinServiceMeshOptions } from './mesh.js';
export { commandOrExit, parseCommand, usage, type CommandSpec, type ParsedCommand } from './command.js';

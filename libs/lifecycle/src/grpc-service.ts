import type { Kysely } from 'kysely';
import { grpcListenAddr, schemaName, type ServiceName } from '@edge/config';
import { createDb, migrate } from '@edge/db';
import { createRpcServer, type RpcServer, type RpcServerOptions } from '@edge/rpc';
import type { Logger } from '@edge/logging';
import type { EdgeService, ServiceContext } from './infra.js';
import { createStack } from './run.js';

/** A stop step: a consumer to unsubscribe, a timer to clear, a background task to wait for. */
export type Teardown = () => Promise<unknown> | unknown;

/** What a service's setup step receives: its own database, its gRPC server, its logger. */
export interface SetupArgs<DB> {
  db: Kysely<DB>;
  server: RpcServer;
  log: Logger;
  /**
   * Registers a stop step. Steps run in reverse order of registration after the server has
   * stopped; those registered before a start failed part-way run too.
   */
  defer(step: Teardown): void;
  /**
   * Runs `step` once the server listens and serves (work that needs the service up, or that
   * should not delay it). What it defers stops first, before the server.
   */
  whenServing(step: () => void): void;
  /** Aborted as stop begins: a start step still waiting for another service gives up. */
  signal: AbortSignal;
}

/** Options of {@link createGrpcService}. */
export interface GrpcServiceOptions {
  /** Options of the service's gRPC server (mutual TLS, methods open to callers without a certificate). */
  server?: RpcServerOptions;
}

/**
 * A service in the standard order. start: migrate its schema → open its database → `setup`
 * (register handlers, bootstrap data, start consumers) → listen → healthy → the steps given to
 * `whenServing`. stop: abort `signal` → what those steps deferred → unhealthy → stop the server
 * with the grace period → the teardown `setup` returned → what `setup` deferred, last first.
 */
export function createGrpcService<DB>(
  ctx: ServiceContext,
  name: ServiceName,
  migrationsDir: string,
  setup: (args: SetupArgs<DB>) => Promise<Teardown | void>,
  options: GrpcServiceOptions = {},
): EdgeService {
  const log = ctx.log.child({ service: name });
  const schema = schemaName(ctx.config, name);
  // A new server per start: a stopped grpc-js server cannot take its handlers again.
  let stack = createStack();
  let aborter = new AbortController();
  let port = 0;

  return {
    name,
    port: () => port,
    async start() {
      stack = createStack();
      aborter = new AbortController();
      await migrate(ctx.conn, schema, migrationsDir, log);
      const server = createRpcServer(name, log, options.server);
      const serving: Array<() => void> = [];
      const teardown = await setup({
        db: createDb<DB>(ctx.conn, schema), server, log, signal: aborter.signal,
        defer: (step) => stack.defer(step),
        whenServing: (step) => serving.push(step),
      });
      if (teardown) stack.defer(teardown);
      stack.defer(async () => {
        server.setServing(false);
        await server.stop(ctx.config.shutdownGraceMs);
      });
      port = await server.listen(grpcListenAddr(ctx.config, name));
      server.setServing(true);
      log.info({ port }, `${name} service listening`);
      for (const step of serving) step();
    },
    async stop() {
      aborter.abort();
      await stack.unwind();
    },
  };
}

import type { Kysely } from 'kysely';
import { grpcListenAddr, schemaName, type ServiceName } from '@edge/config';
import { createDb, migrate } from '@edge/db';
import { createRpcServer, type RpcServer } from '@edge/rpc';
import type { Logger } from '@edge/logging';
import type { EdgeService, ServiceContext } from './infra.js';

/** What a service's setup step receives: its own database, its gRPC server, its logger. */
export interface SetupArgs<DB> {
  db: Kysely<DB>;
  server: RpcServer;
  log: Logger;
}

/** Optional teardown a setup step returns (consumers to stop, timers to clear). */
export type Teardown = () => Promise<void>;

/**
 * A service in the standard order. start: migrate its schema → open its database → `setup`
 * (register handlers, bootstrap data, start consumers) → listen → healthy. stop: unhealthy →
 * stop the server with the grace period → teardown.
 */
export function createGrpcService<DB>(
  ctx: ServiceContext,
  name: ServiceName,
  migrationsDir: string,
  setup: (args: SetupArgs<DB>) => Promise<Teardown | void>,
): EdgeService {
  const log = ctx.log.child({ service: name });
  const schema = schemaName(ctx.config, name);
  // A new server per start: a stopped grpc-js server cannot take its handlers again.
  let server: RpcServer | undefined;
  let port = 0;
  let teardown: Teardown | undefined;

  return {
    name,
    port: () => port,
    async start() {
      await migrate(ctx.conn, schema, migrationsDir, log);
      const s = (server = createRpcServer(name, log));
      teardown = (await setup({ db: createDb<DB>(ctx.conn, schema), server: s, log })) ?? undefined;
      port = await s.listen(grpcListenAddr(ctx.config, name));
      s.setServing(true);
      log.info({ port }, `${name} service listening`);
    },
    async stop() {
      server?.setServing(false);
      await server?.stop(ctx.config.shutdownGraceMs);
      await teardown?.();
      teardown = undefined;
    },
  };
}

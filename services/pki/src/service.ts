/**
 * The pki service: migrate → bootstrap the controller chain → gRPC → serving; stop in reverse.
 */
import { fileURLToPath } from 'node:url';
import { grpcListenAddr, schemaName } from '@edge/config';
import { createDb, migrate } from '@edge/db';
import type { EdgeService, ServiceContext } from '@edge/lifecycle';
import { contracts, type PkiServiceHandlers } from '@edge/proto';
import { createRpcServer, type RpcServer } from '@edge/rpc';
import { createControllerPki, type ControllerPki } from './controller-pki.js';
import { requiredServerNames } from './domain/server-hosts.js';
import { createPkiHandlers } from './grpc.js';
import { resolveKek } from '@edge/key-encryption';
import { createStore, type PkiDb } from './store.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations', import.meta.url));

/** Creates the pki service; nothing happens until `start()`. */
export function createPkiService(ctx: ServiceContext): EdgeService {
  const { config, conn, log } = ctx;
  const schema = schemaName(config, 'pki');
  let server: RpcServer | undefined;
  let boundPort = 0;

  return {
    name: 'pki',
    port: () => boundPort,
    async start() {
      await migrate(conn, schema, MIGRATIONS_DIR, log);
      const store = createStore(createDb<PkiDb>(conn, schema));
      const pki: ControllerPki = createControllerPki({
        store,
        kek: await resolveKek(config, (salt) => store.ensureScryptSalt(salt), log),
        names: requiredServerNames(config.http),
        lockName: `edge.pki.bootstrap:${schema}`,
        log,
      });
      await pki.ensure();
      server = createRpcServer('pki', log);
      server.add<PkiServiceHandlers>(contracts.pki(), createPkiHandlers(pki));
      boundPort = await server.listen(grpcListenAddr(config, 'pki'));
      server.setServing(true);
      log.info({ port: boundPort }, 'pki service serving');
    },
    async stop() {
      const s = server;
      server = undefined;
      await s?.stop(config.shutdownGraceMs);
    },
  };
}

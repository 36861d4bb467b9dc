/**
 * The session service: sessions, terminators, posture data and the controller registry.
 */
import { fileURLToPath } from 'node:url';
import { createGrpcService, type EdgeService, type ServiceContext } from '@edge/lifecycle';
import { contracts, type SessionServiceHandlers } from '@edge/proto';
import { createSessionStore, type SessionDb } from './store.js';
import { createSessionHandlers } from './grpc.js';
import { createSnapshot } from './snapshot.js';

const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

/** Creates the session service; nothing happens until start(). */
export function createSessionService(ctx: ServiceContext): EdgeService {
  return createGrpcService<SessionDb>(ctx, 'session', MIGRATIONS, async ({ db, server }) => {
    server.add<SessionServiceHandlers>(contracts.session(), {
      ...createSessionHandlers(createSessionStore(db)),
      async CreateSnapshot() {
        return { path: await createSnapshot(ctx.config) };
      },
    });
  });
}

/**
 * The session service: sessions, terminators, posture data and the controller registry.
 */
import { fileURLToPath } from 'node:url';
import { createGrpcService, type EdgeService, type ServiceContext } from '@edge/lifecycle';
import { contracts, type SessionServiceHandlers } from '@edge/proto';
import { createSessionStore, type SessionDb } from './store.js';
import { createSessionHandlers } from './grpc.js';
import { createSnapshot } from './snapshot.js';
import { createIntegrityRuns } from './integrity.js';
import { createRpcClient } from '@edge/rpc';

const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

/** Creates the session service; nothing happens until start(). */
export function createSessionService(ctx: ServiceContext): EdgeService {
  return createGrpcService<SessionDb>(ctx, 'session', MIGRATIONS, async ({ db, server }) => {
    const opts = { deadlineMs: 120_000 };
    const auth = createRpcClient(contracts.auth(), ctx.config.grpc.targets.auth, opts);
    const pki = createRpcClient(contracts.pki(), ctx.config.grpc.targets.pki, opts);
    const identity = createRpcClient(contracts.identity(), ctx.config.grpc.targets.identity, opts);
    const policy = createRpcClient(contracts.policy(), ctx.config.grpc.targets.policy, opts);
    const integrity = createIntegrityRuns(db, [
      async (fix) => (await auth.checkIntegrity({ fix })).issues,
      async (fix) => (await pki.checkIntegrity({ fix })).issues,
      async (fix) => (await identity.checkIntegrity({ fix })).issues,
      async (fix) => (await policy.checkIntegrity({ fix })).issues,
    ], ctx.log);
    server.add<SessionServiceHandlers>(contracts.session(), {
      ...createSessionHandlers(createSessionStore(db)),
      async CreateSnapshot() {
        return { path: await createSnapshot(ctx.config) };
      },
      async StartIntegrityCheck(req) {
        await integrity.start(req.fix);
        return {};
      },
      async GetIntegrityResults() {
        const s = await integrity.state();
        const time = (d: Date | null) => (d ?? new Date(0)).toISOString();
        return { ...s, startTime: time(s.startTime), endTime: time(s.endTime) };
      },
    });
    return async () => {
      for (const client of [auth, pki, identity, policy]) client.close();
    };
  });
}

/**
 * gRPC handlers of the database operations: snapshots and data integrity runs.
 */
import type { AsyncHandlers } from '@edge/rpc';
import type { SessionServiceHandlers } from '@edge/proto';
import type { IntegrityRuns } from '../integrity.js';

export interface DatabaseDeps {
  integrity: IntegrityRuns;
  /** Writes a snapshot of every schema; where it went. */
  createSnapshot(): Promise<string>;
}

export function createDatabaseRpcHandlers({ integrity, createSnapshot }: DatabaseDeps): Pick<AsyncHandlers<SessionServiceHandlers>, 'CreateSnapshot' | 'StartIntegrityCheck' | 'GetIntegrityResults'> {
  return {
    async CreateSnapshot() {
      return { path: await createSnapshot() };
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
  };
}

/**
 * Keeping the read model of edge routers (store/edge-router-model.ts) and answering from it:
 * router events applied durably as they come (by version, so repeats and late events change
 * nothing), the identity service's list read a page per step at start-up and periodically
 * (libs/outbox reconcile, never on a request path), and the edge routers policies select matched
 * in the model once a pass completed (before that, the identity service matches them).
 */
import type { Bus, Subscription } from '@edge/bus';
import { EDGE_ROUTER_CREATED, EDGE_ROUTER_DELETED, EDGE_ROUTER_UPDATED, type Received, type RouterEvent } from '@edge/events';
import type { Logger } from '@edge/logging';
import type { ReconcileStep } from '@edge/outbox';
import type { IdentityServiceClient } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';
import type { IdentityDirectory } from './grpc/identities.js';
import { edgeRouterFromEvent, edgeRouterFromProto, type EdgeRouterModel } from './store/edge-router-model.js';

const CONSUMER_GROUP = 'policy-edge-router-model';
/** Routers read per step. */
const PAGE = 500;
/** A row an event or a fill touched this recently is left alone by the deletion sweep (the page lacking it may predate it). */
const QUIET_MS = 10_000;

/** Applies `edge.identity.edge-router.*` events to the model; one replica handles each event. */
export async function followEdgeRouters(bus: Bus, model: EdgeRouterModel, log: Logger): Promise<Subscription[]> {
  const follow = (subject: string, change: 'changed' | 'deleted') => bus.consume<Received<RouterEvent>>(CONSUMER_GROUP, subject, async (msg) => {
    const record = msg.data && typeof msg.data === 'object' ? edgeRouterFromEvent(msg.data) : undefined;
    // Redelivering it would never succeed: the reconciliation repairs what it said.
    if (!record) log.warn({ subject: msg.subject }, 'edge router event this service cannot read, ignored');
    else await model.apply(record, change);
  });
  return Promise.all([
    follow(EDGE_ROUTER_CREATED, 'changed'),
    follow(EDGE_ROUTER_UPDATED, 'changed'),
    follow(EDGE_ROUTER_DELETED, 'deleted'),
  ]);
}

/** The reconciliation step of the model (cursor: the last id of the previous step); a completed pass marks the model filled. */
export function createEdgeRouterReconcile(model: EdgeRouterModel, identity: RpcClient<IdentityServiceClient>): ReconcileStep {
  return async (cursor) => {
    const quietSince = new Date(Date.now() - QUIET_MS);
    const filter = cursor === undefined ? '' : `id > ${JSON.stringify(cursor)}`;
    const page = await identity.listRouters({ kind: 'edge', query: { filter, limit: PAGE, offset: 0, sort: 'id asc', roleFilter: [], roleSemantic: '', withoutTotal: true } });
    await model.applyMany(page.routers.map(edgeRouterFromProto));
    const last = page.routers.length === PAGE ? page.routers[PAGE - 1]!.id : undefined;
    await model.markDeletedExcept({ afterId: cursor, throughId: last }, page.routers.map((r) => r.id), quietSince);
    if (last === undefined) await model.markFilled();
    return last;
  };
}

/** `directory`, with the edge routers policies select (all of them, and counts) matched in the model once it is filled. */
export function withEdgeRouterModel(directory: IdentityDirectory, model: EdgeRouterModel): IdentityDirectory {
  return {
    ...directory,
    async edgeRoutersSelected(selectedBy, alsoSelectedBy, only) {
      if (only || !(await model.isFilled())) return directory.edgeRoutersSelected(selectedBy, alsoSelectedBy, only);
      return model.selected(selectedBy, alsoSelectedBy);
    },
    async countEdgeRoutersSelected(selectedBy) {
      if (!(await model.isFilled())) return directory.countEdgeRoutersSelected(selectedBy);
      return model.countSelected(selectedBy);
    },
  };
}

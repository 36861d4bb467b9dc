/**
 * Filling and repairing the identity read model (store/identity-model.ts) from the identity
 * service's list: a page of identities in id order per step, applied where newer, and the rows
 * of that id range the list no longer holds marked deleted. Runs at start-up and periodically
 * (libs/outbox reconcile), never on a request path; a lost event costs a delay, not a wrong
 * answer for long.
 */
import type { ReconcileStep } from '@edge/outbox';
import { identitiesAfter, type IdentityClient } from './peers/identity.js';
import type { IdentityModel } from './store/identity-model.js';

/** Identities read per step. */
const PAGE = 500;
/**
 * A row an event or a fill touched this recently is left alone by the deletion sweep: the page
 * that lacks it may have been read before the identity was created.
 */
const QUIET_MS = 10_000;

/** The reconciliation step of the read model (cursor: the last id of the previous step). */
export function createIdentityModelReconcile(model: IdentityModel, client: IdentityClient): ReconcileStep {
  return async (cursor) => {
    const quietSince = new Date(Date.now() - QUIET_MS);
    const page = await identitiesAfter(client, cursor, PAGE);
    await model.applyMany(page);
    const last = page.length === PAGE ? page[PAGE - 1]!.id : undefined;
    await model.markDeletedExcept({ afterId: cursor, throughId: last }, page.map((i) => i.id), quietSince);
    return last;
  };
}

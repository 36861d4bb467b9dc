/**
 * What this gateway has heard of changes to what a list shows; by default, the client's service
 * list: everything the policy service owns (services, configs, config types, policies, posture
 * checks) and the identities' own service configs (the identity service's). (The management
 * identity list uses the same with the identity events, http/identity-listing.ts.) A generation
 * moves on every `edge.policy.>` and `edge.identity.service-configs.>` event, on every administrator's write
 * answered through this gateway, and when the connection to the bus comes back after a loss. A
 * change of an identity's role attributes needs none of this: they are part of what a cached
 * answer is kept under. The terms of a hold are @edge/bus's (held.ts); an administrator's write
 * through this gateway moves the generation before its answer is sent, so the next request
 * through it sees the change.
 */
import { createHeardChanges, type Bus, type HeardChanges } from '@edge/bus';
import { POLICY_CHANGES, SERVICE_CONFIGS_CHANGES } from '@edge/events';

export { createHeldAnswers, holds, renewsAt, SETTLE_MS, unheardChanges as unheardListChanges, type Hold } from '@edge/bus';

export type ListChanges = HeardChanges;

/** What moves the generation of the client service list: everything the policy service owns, and the identities' own configs. */
export const SERVICE_LIST_SUBJECTS = [POLICY_CHANGES, SERVICE_CONFIGS_CHANGES];

/** Changes heard on `subjects` (by default {@link SERVICE_LIST_SUBJECTS}), administrators' writes and reconnects. */
export function createListChanges(bus: Bus, holdMs: number, now: () => number = Date.now, subjects: readonly string[] = SERVICE_LIST_SUBJECTS): ListChanges {
  return createHeardChanges(bus, holdMs, subjects, now);
}

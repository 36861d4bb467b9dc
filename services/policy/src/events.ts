/**
 * The events the policy service publishes (subjects and payloads declared in @edge/events).
 * Every change that can alter which services an identity sees (services, configs, policies,
 * posture checks) is announced, so sessions and caches can react. An event is recorded in the transaction of its change and relayed to the bus after the
 * commit (libs/outbox); it says what changed (a policy's roles before and after, a service's or
 * posture check's role attributes, the services a config change touched), so consumers can
 * re-evaluate only what it may affect. Consumers must be idempotent.
 */
import type { Kysely } from 'kysely';
import { policySubject, type ChangeKind, type PolicyChangeEvent, type PolicyEntity, type PolicyRoles } from '@edge/events';
import type { Outbox } from '@edge/outbox';
import type { Policy } from './domain/policy.js';
import { createPolicyStores, type PolicyDb, type PolicyStores } from './store/index.js';

/** The roles of a stored policy, as events carry them. */
export function rolesOf(p: Policy): PolicyRoles {
  return { semantic: p.semantic, ...(p.type ? { type: p.type } : {}), ...p.roles };
}

/** Records one change event in the transaction of the write. */
export type Announce = (entity: PolicyEntity, kind: ChangeKind, event: PolicyChangeEvent) => Promise<void>;

/**
 * Writes through the policy stores in one transaction with the events they announce. `changed`
 * runs once the transaction committed, so this process's caches forget the old state before
 * anyone hears of the new one (other replicas forget it on the published event).
 */
export function createPolicyEvents(outbox: Outbox<PolicyDb>, changed: () => void = () => undefined) {
  return {
    /** Runs `fn` over stores bound to one transaction; what it announces is published after the commit. */
    write<T>(fn: (stores: PolicyStores, announce: Announce) => Promise<T>): Promise<T> {
      return outbox.transaction(async (trx) => {
        const announce: Announce = async (entity, kind, event) => {
          await outbox.enqueue(trx, policySubject(entity, kind), event);
        };
        return fn(createPolicyStores(trx as Kysely<PolicyDb>), announce);
      }, { afterCommit: changed });
    },
  };
}

export type PolicyEvents = ReturnType<typeof createPolicyEvents>;

/**
 * What the policy service publishes: every change that can alter which services an identity sees
 * (services, configs, config types, policies, posture checks), saying what changed, so consumers
 * can re-evaluate only what it may affect.
 */
import { changesOf, everythingOf, subject, CHANGE_KINDS, type ChangeKind } from './subject.js';

/** The entities whose changes are published, by their subject names. */
export const POLICY_ENTITIES = [
  'config-type', 'config', 'service', 'service-policy', 'edge-router-policy', 'service-edge-router-policy', 'posture-check',
] as const;
export type PolicyEntity = (typeof POLICY_ENTITIES)[number];

/** What a policy selects: its semantic, type (service policies) and role lists. */
export interface PolicyRoles {
  semantic: string;
  type?: string;
  identityRoles?: string[];
  serviceRoles?: string[];
  postureCheckRoles?: string[];
  edgeRouterRoles?: string[];
}

/** What a change event carries: the entity's id and name, and what changed. */
export interface PolicyChangeEvent {
  id: string;
  name: string;
  /** Services whose configs changed with this write (config updates and deletes). */
  serviceIds?: string[];
  /** Policies: their roles before the change (absent for a create) and after it (absent for a delete). */
  before?: PolicyRoles;
  after?: PolicyRoles;
  /** Services and posture checks: their role attributes before and after the change. */
  roleAttributes?: { before?: string[]; after?: string[] };
  /**
   * Posture checks: the service policies whose posture check roles select the check, before or
   * after the change; their sessions are the ones its change may end.
   */
  servicePolicies?: PolicyRoles[];
}

/**
 * Published when one of the policy service's entities is created, updated or deleted (after the
 * write committed): `edge.policy.<entity>.<change>`; payload {@link PolicyChangeEvent}.
 */
export const policySubject = <E extends PolicyEntity, C extends ChangeKind>(entity: E, change: C) => subject('policy', entity, change);
/** Published when a service is updated (its role attributes may grant or end access); payload {@link PolicyChangeEvent}. */
export const SERVICE_UPDATED = policySubject('service', 'updated');
/** Published when a service is deleted (its sessions, terminators and config assignments go); payload {@link PolicyChangeEvent}. */
export const SERVICE_DELETED = policySubject('service', 'deleted');
/** Published when a config is deleted (its assignments to identities and routers go); payload {@link PolicyChangeEvent}. */
export const CONFIG_DELETED = policySubject('config', 'deleted');

/** Everything the policy service publishes. */
export const POLICY_CHANGES = everythingOf('policy');
/** Everything published under service policies. */
export const SERVICE_POLICY_CHANGES = changesOf('policy', 'service-policy');
/** Everything published under posture checks. */
export const POSTURE_CHECK_CHANGES = changesOf('policy', 'posture-check');

/** Every subject the policy service publishes. */
export const POLICY_SERVICE_SUBJECTS: readonly string[] = POLICY_ENTITIES.flatMap((e) => CHANGE_KINDS.map((c) => policySubject(e, c)));

/** Every pattern consumers of the policy service's events subscribe to. */
export const POLICY_SERVICE_PATTERNS: readonly string[] = [POLICY_CHANGES, SERVICE_POLICY_CHANGES, POSTURE_CHECK_CHANGES];

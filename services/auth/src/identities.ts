/**
 * The identity service as the auth service sees it: who an identity is, and the default
 * admin. Identities are owned there; this service only asks (ARCHITECTURE.md rule 1).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isZitiError } from '@edge/errors';
import type { Logger } from '@edge/logging';
import type { IdentityServiceClient, identity } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';

/** What authentication needs to know about an identity. */
export interface IdentityInfo {
  id: string;
  name: string;
  isAdmin: boolean;
  isDefaultAdmin: boolean;
  /** Disabled now (an admin, or a lockout not yet expired). */
  disabled: boolean;
  authPolicyId: string;
  /** admin_readonly and entity / entity-action permissions (the Management API enforces them). */
  permissions: string[];
}

/** The identity service client this service uses. */
export type IdentityClient = RpcClient<IdentityServiceClient>;

/** Identity look-ups over gRPC. */
export interface Identities {
  /** The identity, or undefined when the identity service does not know it. */
  find(id: string): Promise<IdentityInfo | undefined>;
  /** The identity with this externalId, if any. */
  findByExternalId(externalId: string): Promise<IdentityInfo | undefined>;
  /** The identities of these ids the identity service knows, by id. */
  findMany(ids: string[]): Promise<Map<string, IdentityInfo>>;
  /** Records the envInfo/sdkInfo JSON a client sent when authenticating. */
  updateEnvironment(id: string, envInfoJson: string, sdkInfoJson: string): Promise<void>;
  /** The default admin identity, created by the identity service on first call. */
  ensureDefaultAdmin(name: string): Promise<IdentityInfo>;
  /** How many identities use this auth policy. */
  countByAuthPolicy(authPolicyId: string): Promise<number>;
  /** Disables the identity (lockout) for `durationMinutes`, 0 meaning until enabled. */
  disable(id: string, durationMinutes: number): Promise<void>;
  /** Creates an identity under a preassigned id (token enrollment). */
  create(i: { id: string; name: string; roleAttributes: string[]; externalId: string; authPolicyId: string }): Promise<void>;
  /** Deletes an identity (a token enrollment whose authenticator could not be created). */
  remove(id: string): Promise<void>;
}

function toInfo(i: identity.Identity__Output): IdentityInfo {
  return {
    id: i.id, name: i.name, isAdmin: i.isAdmin, isDefaultAdmin: i.isDefaultAdmin, disabled: i.disabled, authPolicyId: i.authPolicyId || 'default',
    permissions: i.permissions ?? [],
  };
}

/** Wraps the identity client. */
export function createIdentities(client: IdentityClient): Identities {
  return {
    async find(id) {
      try {
        return toInfo(await client.getIdentity({ id }));
      } catch (err) {
        if (isZitiError(err) && err.code === 'NOT_FOUND') return undefined;
        throw err;
      }
    },
    async findByExternalId(externalId) {
      try {
        const page = await client.listIdentities({ query: { filter: `externalId = ${JSON.stringify(externalId)}`, limit: 1, offset: 0, sort: '', roleFilter: [], roleSemantic: '' } });
        return page.identities[0] && toInfo(page.identities[0]);
      } catch (err) {
        // A value the filter language cannot carry (a control character) names no identity.
        if (isZitiError(err) && err.code === 'INVALID_FILTER') return undefined;
        throw err;
      }
    },
    async findMany(ids) {
      const unique = [...new Set(ids)];
      if (unique.length === 0) return new Map();
      const { identities } = await client.getIdentities({ ids: unique });
      return new Map(identities.map((i) => [i.id, toInfo(i)]));
    },
    async updateEnvironment(id, envInfoJson, sdkInfoJson) {
      await client.updateIdentityEnvironment({ id, envInfoJson, sdkInfoJson });
    },
    async ensureDefaultAdmin(name) {
      return toInfo(await client.ensureDefaultAdmin({ name }));
    },
    async countByAuthPolicy(authPolicyId) {
      return (await client.countIdentitiesByAuthPolicy({ authPolicyId })).count;
    },
    async disable(id, durationMinutes) {
      await client.disableIdentity({ id, durationMinutes });
    },
    async create(i) {
      await client.createIdentity({ id: i.id, fields: { name: i.name, typeId: 'Default', roleAttributes: i.roleAttributes, externalId: i.externalId, authPolicyId: i.authPolicyId } });
    },
    async remove(id) {
      await client.deleteIdentity({ id });
    },
  };
}

/** Options of {@link retryWhileUnavailable}. */
export interface RetryOptions {
  timeoutMs: number;
  log: Logger;
  signal?: AbortSignal;
}

/**
 * Calls `fn` until it answers, backing off while the callee is UNAVAILABLE: in distributed
 * mode services start in any order. Other errors, and UNAVAILABLE past the timeout, are thrown.
 */
export async function retryWhileUnavailable<T>(fn: () => Promise<T>, opts: RetryOptions): Promise<T> {
  const until = Date.now() + opts.timeoutMs;
  let delayMs = 200;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      const unavailable = isZitiError(err) && err.code === 'UNAVAILABLE';
      if (!unavailable || Date.now() + delayMs > until || opts.signal?.aborted) throw err;
      opts.log.info({ delayMs }, 'identity service not available yet, retrying');
      await sleep(delayMs, undefined, { signal: opts.signal });
      delayMs = Math.min(delayMs * 2, 5_000);
    }
  }
}

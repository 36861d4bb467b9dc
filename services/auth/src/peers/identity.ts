/**
 * The identity service as the auth service sees it: who an identity is, and the default
 * admin. Identities are owned there; this service only asks (ARCHITECTURE.md rule 1).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isZitiError } from '@edge/errors';
import type { Logger } from '@edge/logging';
import type { IdentityServiceClient, identity } from '@edge/proto';
import { orMissing, type RpcClient } from '@edge/rpc';
import type { IdentityInfo, IdentityRecord } from '../domain/identity.js';
import type { IdentityModel, ModelLookup } from '../store/identity-model.js';

export type { IdentityInfo };

/** The identity service client this service uses. */
export type IdentityClient = RpcClient<IdentityServiceClient>;

/** Identity look-ups over gRPC. */
export interface Identities {
  /**
   * The identity, or undefined when the identity service does not know it. With `notBefore`, a
   * version older than that is not answered: the identity service is asked for the current one.
   */
  find(id: string, notBefore?: Date): Promise<IdentityInfo | undefined>;
  /**
   * As `find`, given what the read model holds of the identity (read by the caller with other
   * rows, in one statement): the identity service is asked only when the model does not know it,
   * or holds it older than `notBefore`.
   */
  findFrom(id: string, local: ModelLookup, notBefore?: Date): Promise<IdentityInfo | undefined>;
  /** The identity with this externalId, if any. */
  findByExternalId(externalId: string): Promise<IdentityInfo | undefined>;
  /** The identities of these ids the identity service knows, by id. */
  findMany(ids: string[]): Promise<Map<string, IdentityInfo>>;
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
    permissions: i.permissions ?? [], roleAttributes: i.roleAttributes ?? [], externalId: i.externalId ?? null,
    updatedAt: new Date(i.updatedAt || 0),
  };
}

/** The version of an identity the identity service answered with, for the read model. */
export function recordOf(i: identity.Identity__Output): IdentityRecord {
  return {
    id: i.id, name: i.name, typeId: i.typeId, isAdmin: i.isAdmin, isDefaultAdmin: i.isDefaultAdmin,
    // as answered: disabled now, and until when
    disabled: i.disabled, disabledUntil: i.disabled && i.disabledUntil ? new Date(i.disabledUntil) : null,
    authPolicyId: i.authPolicyId || 'default', externalId: i.externalId ?? null, permissions: i.permissions ?? [],
    roleAttributes: i.roleAttributes ?? [], updatedAt: new Date(i.updatedAt || 0),
  };
}

/** One page of every identity in id order, after `afterId` (reconciliation of the read model). */
export async function identitiesAfter(client: IdentityClient, afterId: string | undefined, limit: number): Promise<IdentityRecord[]> {
  const filter = afterId === undefined ? '' : `id > ${JSON.stringify(afterId)}`;
  const page = await client.listIdentities({ query: { filter, limit, offset: 0, sort: 'id asc', roleFilter: [], roleSemantic: '', withoutTotal: true } });
  return page.identities.map(recordOf);
}

/** undefined for NOT_FOUND, the identity otherwise. */
function getOrMissing(client: IdentityClient, id: string): Promise<identity.Identity__Output | undefined> {
  return orMissing(client.getIdentity({ id }));
}

/** The identity with this externalId, if any. */
async function withExternalId(client: IdentityClient, externalId: string): Promise<identity.Identity__Output | undefined> {
  try {
    const page = await client.listIdentities({ query: { filter: `externalId = ${JSON.stringify(externalId)}`, limit: 1, offset: 0, sort: '', roleFilter: [], roleSemantic: '' } });
    return page.identities[0];
  } catch (err) {
    // A value the filter language cannot carry (a control character) names no identity.
    if (isZitiError(err) && err.code === 'INVALID_FILTER') return undefined;
    throw err;
  }
}

/** True when `i` is a version older than `notBefore`. */
const olderThan = (i: IdentityInfo, notBefore: Date | undefined) =>
  notBefore !== undefined && (i.updatedAt?.getTime() ?? 0) < notBefore.getTime();

/**
 * Identity look-ups answered from the read model (ARCHITECTURE.md rule 8): the identity service
 * is asked only about an identity the model has never heard of (created an instant ago, its event
 * not applied yet) or holds older than the caller knows it to be (its change announced, the event
 * not applied here yet), and the answer goes into the model. An identity the model knows to be
 * deleted is not asked about. Writes go to the identity service.
 */
export function createIdentityDirectory(model: IdentityModel, remote: Identities, client: IdentityClient): Identities {
  const fetchInto = async (id: string): Promise<IdentityInfo | undefined> => {
    const found = await getOrMissing(client, id);
    if (!found) return undefined;
    await model.apply(recordOf(found));
    return toInfo(found);
  };
  const resolve = async (id: string, local: ModelLookup, notBefore?: Date): Promise<IdentityInfo | undefined> => {
    if (local.state === 'present' && !olderThan(local.identity, notBefore)) return local.identity;
    return local.state === 'deleted' ? undefined : fetchInto(id);
  };
  return {
    ...remote,
    async find(id, notBefore) {
      return resolve(id, await model.find(id), notBefore);
    },
    findFrom: (id, local, notBefore) => resolve(id, local, notBefore),
    async findByExternalId(externalId) {
      const local = await model.findByExternalId(externalId);
      if (local) return local;
      const found = await withExternalId(client, externalId);
      if (found) await model.apply(recordOf(found));
      return found && toInfo(found);
    },
    async findMany(ids) {
      const { found, deleted } = await model.findMany(ids);
      const missing = [...new Set(ids)].filter((id) => !found.has(id) && !deleted.has(id));
      if (missing.length > 0) {
        const { identities } = await client.getIdentities({ ids: missing });
        await model.applyMany(identities.map(recordOf));
        for (const i of identities) found.set(i.id, toInfo(i));
      }
      return found;
    },
  };
}

/** Wraps the identity client. */
export function createIdentities(client: IdentityClient): Identities {
  const find = async (id: string) => {
    const found = await getOrMissing(client, id);
    return found && toInfo(found);
  };
  return {
    find,
    // No model here: the identity service answers.
    findFrom: (id) => find(id),
    async findByExternalId(externalId) {
      const found = await withExternalId(client, externalId);
      return found && toInfo(found);
    },
    async findMany(ids) {
      const unique = [...new Set(ids)];
      if (unique.length === 0) return new Map();
      const { identities } = await client.getIdentities({ ids: unique });
      return new Map(identities.map((i) => [i.id, toInfo(i)]));
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

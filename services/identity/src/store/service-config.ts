/**
 * Queries on an identity's own service configs.
 */
import type { Kysely } from 'kysely';
import { notFound } from '@edge/errors';
import type { IdentityEvents } from '../events.js';
import type { IdentityDb } from './db.js';

/** One override: the identity's config of a type for a service. */
export interface ServiceConfig {
  serviceId: string;
  configId: string;
  configTypeId: string;
}

/**
 * Creates the store over the identity service's schema; an assignment or removal is announced
 * (`serviceConfigsChanged`) in its transaction.
 */
export function createServiceConfigStore(db: Kysely<IdentityDb>, events: Pick<IdentityEvents, 'transaction' | 'serviceConfigsChanged'>) {
  const exists = async (trx: Kysely<IdentityDb>, identityId: string) => {
    const row = await trx.selectFrom('identities').select('id').where('id', '=', identityId).executeTakeFirst();
    if (!row) throw notFound('identity', identityId);
  };

  return {
    async list(identityId: string): Promise<ServiceConfig[]> {
      await exists(db, identityId);
      const rows = await db.selectFrom('identity_service_configs').select(['service_id', 'config_id', 'config_type_id'])
        .where('identity_id', '=', identityId).orderBy('service_id').orderBy('config_type_id').execute();
      return rows.map((r) => ({ serviceId: r.service_id, configId: r.config_id, configTypeId: r.config_type_id }));
    },

    /** Adds the configs; one of the same service and type is replaced, also within `configs` (the later wins). */
    async assign(identityId: string, configs: ServiceConfig[]): Promise<void> {
      // One statement may not upsert a key twice, so only the last of each service and type goes in.
      const last = [...new Map(configs.map((c) => [`${c.serviceId}\u0000${c.configTypeId}`, c])).values()];
      await events.transaction(async (trx) => {
        await exists(trx, identityId);
        if (last.length === 0) return;
        await trx.insertInto('identity_service_configs')
          .values(last.map((c) => ({ identity_id: identityId, service_id: c.serviceId, config_type_id: c.configTypeId, config_id: c.configId })))
          .onConflict((oc) => oc.columns(['identity_id', 'service_id', 'config_type_id']).doUpdateSet((eb) => ({ config_id: eb.ref('excluded.config_id') })))
          .execute();
        await events.serviceConfigsChanged(trx, identityId);
      });
    },

    /** Every assignment of every identity (the integrity check). */
    async all(): Promise<Array<ServiceConfig & { identityId: string }>> {
      const rows = await db.selectFrom('identity_service_configs').select(['identity_id', 'service_id', 'config_id', 'config_type_id']).execute();
      return rows.map((r) => ({ identityId: r.identity_id, serviceId: r.service_id, configId: r.config_id, configTypeId: r.config_type_id }));
    },

    /** Removes the given service/config pairs, or all of the identity's when none are given. */
    async remove(identityId: string, configs: Array<Pick<ServiceConfig, 'serviceId' | 'configId'>>): Promise<void> {
      await events.transaction(async (trx) => {
        await exists(trx, identityId);
        let q = trx.deleteFrom('identity_service_configs').where('identity_id', '=', identityId);
        if (configs.length > 0) {
          q = q.where((eb) => eb.or(configs.map((c) => eb.and([eb('service_id', '=', c.serviceId), eb('config_id', '=', c.configId)]))));
        }
        if (Number((await q.executeTakeFirst()).numDeletedRows) > 0) await events.serviceConfigsChanged(trx, identityId);
      });
    },

    /** Removes every identity's assignments naming a deleted service or config; how many went. */
    async removeNaming(column: 'service_id' | 'config_id', id: string): Promise<number> {
      const r = await db.deleteFrom('identity_service_configs').where(column, '=', id).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}

export type ServiceConfigStore = ReturnType<typeof createServiceConfigStore>;

/**
 * External JWT signer operations: CRUD with their rules; a signer an auth policy names cannot
 * be deleted.
 */
import { newId } from '@edge/ids';
import { ZitiError } from '@edge/errors';
import type { ListPlan } from '@edge/zitiql';
import { validateExtJwtSigner, type ExtJwtSignerInput } from './domain/ext-jwt-signer.js';
import type { ExtJwtSignerStore } from './store/ext-jwt-signer.js';

/** Builds the operations; `policiesUsing` counts the auth policies that name a signer. The store announces changes. */
export function createExtJwtSigners(store: ExtJwtSignerStore, policiesUsing: (signerId: string) => Promise<number>) {
  return {
    async create(input: ExtJwtSignerInput): Promise<string> {
      const cert = validateExtJwtSigner(input);
      const id = newId();
      await store.insert(id, input, cert);
      return id;
    },

    get: (id: string) => store.get(id),

    list: (plan: ListPlan, enabledOnly = false) => store.list(plan, enabledOnly),

    async update(id: string, input: ExtJwtSignerInput): Promise<void> {
      await store.update(id, input, validateExtJwtSigner(input));
    },

    async delete(id: string): Promise<void> {
      await store.get(id);
      const using = await policiesUsing(id);
      if (using > 0) {
        throw new ZitiError('CAN_NOT_DELETE_REFERENCED_ENTITY', { causeMessage: `external JWT signer ${id} is named by ${using} auth polic${using === 1 ? 'y' : 'ies'}` });
      }
      await store.delete(id);
    },
  };
}

export type ExtJwtSigners = ReturnType<typeof createExtJwtSigners>;

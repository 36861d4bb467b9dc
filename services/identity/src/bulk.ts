/**
 * Bulk import of identities and edge routers straight into the identity service's schema, for
 * loading large datasets (benchmarks, seeding a new network), with the controller running or
 * stopped. Rows are validated as the API validates them. Edge routers are announced as created
 * (through the service's outbox, published by its relay) for the services that keep a read model
 * of them; identities are not announced (the auth service reads an identity it has not heard of
 * from its owner once). No enrollments are made, so imported edge routers start unenrolled.
 */
import { vacuumAnalyzeTables, createDb, type DbConnection } from '@edge/db';
import { atPath } from '@edge/errors';
import { newId } from '@edge/ids';
import { DEFAULT_AUTH_POLICY_ID, validateIdentityInput, type IdentityInput } from './domain/identity.js';
import { validateRouterInput, type RouterInput } from './domain/router.js';
import type { IdentityDb } from './store/db.js';
import { insertIdentitiesInBulk } from './store/identity.js';
import { insertRoutersInBulk } from './store/router.js';

/** An identity to import: the API's create fields that matter at scale; the rest default. */
export interface BulkIdentity {
  id?: string;
  name: string;
  isAdmin?: boolean;
  roleAttributes?: string[];
  tags?: Record<string, unknown>;
}

/** An edge router to import. */
export interface BulkEdgeRouter {
  id?: string;
  name: string;
  roleAttributes?: string[];
  cost?: number;
  tags?: Record<string, unknown>;
}

/** A validated import: the ids given or made (in input order), written by `write`. */
export interface IdentityImport {
  ids: { identities: string[]; edgeRouters: string[] };
  write(conn: DbConnection, schema: string): Promise<void>;
}

/** Validates both lists (a bad row is a field error under `identities[i]`/`edgeRouters[i]`). */
export function planIdentityImport(data: { identities?: readonly BulkIdentity[]; edgeRouters?: readonly BulkEdgeRouter[] }): IdentityImport {
  const identities = (data.identities ?? []).map((x, i) => atPath(`identities[${i}]`, () => {
    const input: IdentityInput = {
      name: x.name, typeId: 'Default', isAdmin: x.isAdmin ?? false, roleAttributes: x.roleAttributes ?? [], tags: x.tags ?? {}, appData: {},
      defaultHostingCost: 0, defaultHostingPrecedence: 'default', serviceHostingCosts: {}, serviceHostingPrecedences: {},
      externalId: null, authPolicyId: DEFAULT_AUTH_POLICY_ID, permissions: [],
    };
    validateIdentityInput(input);
    return { id: x.id ?? newId(), input };
  }));
  const routers = (data.edgeRouters ?? []).map((x, i) => atPath(`edgeRouters[${i}]`, () => {
    const input: RouterInput = {
      name: x.name, roleAttributes: x.roleAttributes ?? [], tags: x.tags ?? {}, appData: {}, cost: x.cost ?? 0,
      noTraversal: false, disabled: false, isTunnelerEnabled: false, ctrlChanListeners: {}, configs: [],
    };
    validateRouterInput(input);
    return { id: x.id ?? newId(), input };
  }));
  return {
    ids: { identities: identities.map((r) => r.id), edgeRouters: routers.map((r) => r.id) },
    async write(conn, schema) {
      const db = createDb<IdentityDb>(conn, schema);
      await insertIdentitiesInBulk(db, identities);
      await insertRoutersInBulk(db, 'edge', routers);
      await vacuumAnalyzeTables(db, schema, ['identities', 'routers']);
      await db.destroy();
    },
  };
}

/**
 * Queries of the data integrity check: the `@id` roles policies hold, and their removal.
 */
import { sql, type Kysely } from 'kysely';
import type { PolicyKysely } from './db.js';

/** A policy table and the kinds of entity its `@id` roles name (column prefix of `<p>_ids`/`<p>_roles`). */
export interface PolicyTableRefs {
  table: 'service_policies' | 'edge_router_policies' | 'service_edge_router_policies';
  prefixes: ReadonlyArray<'identity' | 'service' | 'posture_check' | 'edge_router'>;
}

/** One `@id` role of one policy. */
export interface RoleRef {
  policyId: string;
  policyName: string;
  prefix: PolicyTableRefs['prefixes'][number];
  ref: string;
}

// The three policy tables share their shape; columns are named from the prefix.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = Kysely<Record<string, any>>;

/** Creates the store over the policy schema. */
export function createIntegrityStore(typed: PolicyKysely) {
  const db = typed as unknown as Any;
  return {
    async roleRefs(t: PolicyTableRefs): Promise<RoleRef[]> {
      const out: RoleRef[] = [];
      for (const prefix of t.prefixes) {
        const rows = await db.selectFrom(t.table).select(['id', 'name', sql<string>`unnest(${sql.ref(`${prefix}_ids`)})`.as('ref')]).execute();
        out.push(...rows.map((r) => ({ policyId: r.id as string, policyName: r.name as string, prefix, ref: r.ref as string })));
      }
      return out;
    },

    /** Which of these ids name existing rows of a local table. */
    async existing(table: 'services' | 'posture_checks', ids: string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await db.selectFrom(table).select('id').where('id', 'in', ids).execute();
      return new Set(rows.map((r) => r.id as string));
    },

    /** Removes an `@id` role from a policy (from the roles as given and their id column). */
    async removeRef(t: PolicyTableRefs, r: RoleRef): Promise<void> {
      await db.updateTable(t.table).set({
        [`${r.prefix}_ids`]: sql`array_remove(${sql.ref(`${r.prefix}_ids`)}, ${r.ref}::text)`,
        [`${r.prefix}_roles`]: sql`array_remove(${sql.ref(`${r.prefix}_roles`)}, ${`@${r.ref}`}::text)`,
        updated_at: sql`now()`,
      }).where('id', '=', r.policyId).execute();
    },
  };
}

export type IntegrityStore = ReturnType<typeof createIntegrityStore>;

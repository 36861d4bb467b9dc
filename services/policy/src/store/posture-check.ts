/**
 * Queries of posture checks and posture check types.
 */
import { sql, type Selectable } from 'kysely';
import { entityFields, field, runList, type FieldMap, type ListPlan } from '@edge/zitiql';
import type { PostureCheck, PostureCheckInput, PostureCheckTypeId } from '../domain/posture-check.js';
import { found, json, listRoleAttributes, NOW, writeError, type PolicyKysely, type PostureChecksTable, type PostureCheckTypesTable } from './db.js';

/** What a filter on `/posture-checks` may read. */
export const POSTURE_CHECK_FIELDS: FieldMap = {
  ...entityFields({ named: true }),
  typeId: field.string('type_id'),
  roleAttributes: field.set('role_attributes'),
  version: field.number('version'),
};

/** What a filter on `/posture-check-types` may read. */
export const POSTURE_CHECK_TYPE_FIELDS: FieldMap = entityFields({ named: true });

export function toDomain(r: Selectable<PostureChecksTable>): PostureCheck {
  return {
    id: r.id, name: r.name, typeId: r.type_id as PostureCheckTypeId, roleAttributes: r.role_attributes, version: r.version,
    data: r.data, tags: r.tags, createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

const toRow = (i: PostureCheckInput) => ({ name: i.name, type_id: i.typeId, role_attributes: i.roleAttributes, data: json(i.data), tags: json(i.tags) });

export type PostureCheckTypeRow = Selectable<PostureCheckTypesTable>;

export function createPostureCheckStore(db: PolicyKysely) {
  return {
    /** A page of checks, optionally only those a service policy's posture check roles select. */
    async list(plan: ListPlan, scope?: { ids: string[] }): Promise<{ items: PostureCheck[]; total: number }> {
      let from = db.selectFrom('posture_checks');
      if (scope) from = from.where('id', 'in', scope.ids.length ? scope.ids : ['']);
      const { rows, total } = await runList(from, plan, (qb) => qb.selectAll());
      return { items: (rows as Selectable<PostureChecksTable>[]).map(toDomain), total };
    },

    async get(id: string): Promise<PostureCheck> {
      return toDomain(found(await db.selectFrom('posture_checks').selectAll().where('id', '=', id).executeTakeFirst(), 'posture check', id));
    },

    /** Checks whose id or name is one of `refs` (for `@` roles and display names). */
    async resolveRefs(refs: readonly string[]): Promise<Array<{ id: string; name: string }>> {
      if (refs.length === 0) return [];
      return db.selectFrom('posture_checks').select(['id', 'name']).where((eb) => eb.or([eb('id', 'in', [...refs]), eb('name', 'in', [...refs])])).execute();
    },

    /** The checks a role list selects (`#all`, attributes per semantic, ids). */
    async matching(roles: { all: boolean; attrs: string[]; ids: string[] }, semantic: string): Promise<PostureCheck[]> {
      let q = db.selectFrom('posture_checks').selectAll();
      if (!roles.all) {
        const attrOp = semantic === 'AnyOf' ? sql`&&` : sql`@>`;
        q = q.where((eb) => eb.or([
          eb('id', 'in', roles.ids.length ? roles.ids : ['']),
          ...(roles.attrs.length ? [sql<boolean>`role_attributes ${attrOp} ${roles.attrs}::text[]`] : []),
        ]));
      }
      return (await q.orderBy('created_at').orderBy('id').execute()).map(toDomain);
    },

    async insert(id: string, input: PostureCheckInput): Promise<PostureCheck> {
      try {
        return toDomain(await db.insertInto('posture_checks').values({ id, ...toRow(input), version: 1 }).returningAll().executeTakeFirstOrThrow());
      } catch (err) {
        writeError(err, 'postureChecks', input.name);
      }
    },

    /** Writes the new fields and increments `version`. */
    async update(id: string, input: PostureCheckInput): Promise<PostureCheck> {
      try {
        const row = await db.updateTable('posture_checks').set({ ...toRow(input), version: sql`version + 1`, updated_at: NOW }).where('id', '=', id).returningAll().executeTakeFirst();
        return toDomain(found(row, 'posture check', id));
      } catch (err) {
        writeError(err, 'postureChecks', input.name);
      }
    },

    async delete(id: string): Promise<boolean> {
      const r = await db.deleteFrom('posture_checks').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    listRoleAttributes: (plan: ListPlan) => listRoleAttributes(db, 'posture_checks', plan),

    async listTypes(plan: ListPlan): Promise<{ items: PostureCheckTypeRow[]; total: number }> {
      const { rows, total } = await runList(db.selectFrom('posture_check_types'), plan, (qb) => qb.selectAll());
      return { items: rows as PostureCheckTypeRow[], total };
    },

    async getType(id: string): Promise<PostureCheckTypeRow> {
      return found(await db.selectFrom('posture_check_types').selectAll().where('id', '=', id).executeTakeFirst(), 'posture check type', id);
    },
  };
}

export type PostureCheckStore = ReturnType<typeof createPostureCheckStore>;

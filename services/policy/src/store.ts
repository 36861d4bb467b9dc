/**
 * Every query of the policy service.
 */
import type { ColumnType, Generated, Kysely, Selectable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

interface ConfigTypesTable {
  id: string;
  name: string;
  schema: Record<string, unknown>;
  tags: Record<string, unknown>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The policy schema as kysely sees it. */
export interface PolicyDb {
  config_types: ConfigTypesTable;
}

export type ConfigTypeRow = Selectable<ConfigTypesTable>;

/** Creates the store over the service's own schema. */
export function createPolicyStore(db: Kysely<PolicyDb>) {
  return {
    async listConfigTypes(limit: number, offset: number): Promise<{ items: ConfigTypeRow[]; total: number }> {
      const [items, count] = await Promise.all([
        db.selectFrom('config_types').selectAll().orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute(),
        db.selectFrom('config_types').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { items, total: Number(count.n) };
    },
  };
}

export type PolicyStore = ReturnType<typeof createPolicyStore>;

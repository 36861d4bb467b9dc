/**
 * Every query of the policy service.
 */
import type { ColumnType, Kysely, Selectable } from 'kysely';
import { entityFields, runList, type FieldMap, type ListPlan } from '@edge/zitiql';

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

/** What a filter on `/config-types` may read. */
export const CONFIG_TYPE_FIELDS: FieldMap = entityFields({ named: true });

/** Creates the store over the service's own schema. */
export function createPolicyStore(db: Kysely<PolicyDb>) {
  return {
    async listConfigTypes(plan: ListPlan): Promise<{ items: ConfigTypeRow[]; total: number }> {
      const { rows, total } = await runList(db.selectFrom('config_types'), plan, (qb) => qb.selectAll());
      return { items: rows as ConfigTypeRow[], total };
    },
  };
}

export type PolicyStore = ReturnType<typeof createPolicyStore>;

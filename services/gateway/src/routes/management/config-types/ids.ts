/**
 * The config types an API session asks for at login, kept as ids: the policy service (their
 * owner) is asked once which of the given values name a config type by id or by name.
 */
import type { Clients } from '../../../clients.js';
import { createHeldAnswers, type ListChanges } from '../../../http/list-changes.js';
import { everyRow } from '../../shared/list.js';

/** Lists of config types kept resolved at most (the least recently used go first). */
const HELD_LISTS = 256;

/**
 * As MapConfigTypeNamesToIds (controller/model/config_type_manager.go): `all` stands alone, an id
 * stays, a name becomes its type's id, anything else is dropped; each id once.
 */
export async function configTypeIds(clients: Clients, values: readonly string[]): Promise<string[]> {
  if (values.includes('all')) return ['all'];
  // A control character or lone surrogate has no ZitiQL spelling; such a value names nothing.
  const named = values.filter((v) => !/[\u0000-\u001f\ud800-\udfff]/.test(v));
  if (named.length === 0) return [];
  const list = named.map((v) => JSON.stringify(v)).join(', ');
  const configTypes = await everyRow(`id in [${list}] or name in [${list}]`, async (query) => {
    const page = await clients.policy.listConfigTypes({ query });
    return { rows: page.configTypes, meta: page.meta };
  });
  const ids = new Set(configTypes.map((t) => t.id));
  const byName = new Map(configTypes.map((t) => [t.name, t.id]));
  return [...new Set(named.flatMap((v) => (ids.has(v) ? [v] : byName.has(v) ? [byName.get(v)!] : [])))];
}

/**
 * {@link configTypeIds} for logins: a tunneler names the same config types at every login, and
 * each list is resolved once and held on the terms of the client service list (a change to
 * anything the policy service owns, config types among it, ends every hold; see
 * http/list-changes.ts).
 */
export function heldConfigTypeIds(clients: Clients, changes: ListChanges): (values: readonly string[]) => Promise<string[]> {
  const held = createHeldAnswers<string[]>(changes, HELD_LISTS);
  return (values) => {
    // Nothing to ask the policy service: nothing to hold.
    if (values.length === 0 || values.includes('all')) return configTypeIds(clients, values);
    return held.through(JSON.stringify(values), () => configTypeIds(clients, values));
  };
}

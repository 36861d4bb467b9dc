/**
 * Existence of services and configs, asked of the policy service (their owner) in pages.
 */
import type { PolicyServiceClient } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';
import type { PolicyLookup } from './integrity.js';

const PAGE = 200;

function idQuery(ids: string[]) {
  return { limit: PAGE, offset: 0, filter: `id in [${ids.map((i) => JSON.stringify(i)).join(', ')}]`, sort: '', roleFilter: [], roleSemantic: '' };
}

/** The lookup over a policy service client. */
export function createPolicyLookup(client: RpcClient<PolicyServiceClient>): PolicyLookup {
  const inPages = async (ids: string[], page: (chunk: string[]) => Promise<string[]>) => {
    const found = new Set<string>();
    for (let i = 0; i < ids.length; i += PAGE) for (const id of await page(ids.slice(i, i + PAGE))) found.add(id);
    return found;
  };
  return {
    existingServices: (ids) => inPages(ids, async (chunk) => (await client.listServices({ query: idQuery(chunk), configTypes: [] })).services.map((s) => s.id)),
    existingConfigs: (ids) => inPages(ids, async (chunk) => (await client.listConfigs({ query: idQuery(chunk) })).configs.map((c) => c.id)),
  };
}

/**
 * What the policy service asks the identity service (which owns identities and edge routers):
 * which identities and edge routers `@` roles name, and their names for `*RolesDisplay`.
 */
import type { IdentityServiceClient } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';
import type { NamedEntity } from '../domain/roles.js';

/** Identity and edge router lookups the policy handlers need. */
export interface IdentityDirectory {
  /** Identities whose id or name is one of `refs`. */
  resolve(refs: readonly string[]): Promise<NamedEntity[]>;
  /** Identities with these ids. */
  names(ids: readonly string[]): Promise<NamedEntity[]>;
  /** Edge routers whose id or name is one of `refs`. */
  edgeRouters(refs: readonly string[]): Promise<NamedEntity[]>;
}

const PAGE = 500;

export function createIdentityDirectory(client: RpcClient<IdentityServiceClient>): IdentityDirectory {
  return {
    async resolve(refs) {
      const out: NamedEntity[] = [];
      for (let i = 0; i < refs.length; i += PAGE) {
        const chunk = refs.slice(i, i + PAGE).map((r) => `@${r}`);
        const page = await client.listIdentities({ query: { limit: PAGE, offset: 0, filter: '', sort: '', roleFilter: chunk, roleSemantic: 'AnyOf' } });
        out.push(...page.identities.map((x) => ({ id: x.id, name: x.name })));
      }
      return out;
    },
    async edgeRouters(refs) {
      const out: NamedEntity[] = [];
      for (let i = 0; i < refs.length; i += PAGE) {
        const chunk = refs.slice(i, i + PAGE).map((r) => `@${r}`);
        const page = await client.listRouters({ kind: 'edge', query: { limit: PAGE, offset: 0, filter: '', sort: '', roleFilter: chunk, roleSemantic: 'AnyOf' } });
        out.push(...page.routers.map((x) => ({ id: x.id, name: x.name })));
      }
      return out;
    },
    async names(ids) {
      if (ids.length === 0) return [];
      const { identities } = await client.getIdentities({ ids: [...ids] });
      return identities.map((x) => ({ id: x.id, name: x.name }));
    },
  };
}

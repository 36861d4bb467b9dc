/**
 * What the policy service asks the identity service (which owns identities and edge routers):
 * which identities and edge routers `@` roles name, and their names for `*RolesDisplay`; which
 * edge routers policies select; an identity's own configs for services.
 */
import type { IdentityServiceClient, common, identity as ipb } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';
import type { NamedEntity, RoleSelection } from '../domain/roles.js';

/** Identity and edge router lookups the policy handlers need. */
export interface IdentityDirectory {
  /** Identities whose id or name is one of `refs`. */
  resolve(refs: readonly string[]): Promise<NamedEntity[]>;
  /** Identities with these ids. */
  names(ids: readonly string[]): Promise<NamedEntity[]>;
  /** Edge routers whose id or name is one of `refs`. */
  edgeRouters(refs: readonly string[]): Promise<NamedEntity[]>;
  /** Every edge router (or, given `only`, that page of them) some role list of `selectedBy` and some of `alsoSelectedBy` select. */
  edgeRoutersSelected(selectedBy: RoleSelection[], alsoSelectedBy: RoleSelection[], only?: common.ListQuery): Promise<ipb.Router__Output[]>;
  /** A page of the edge routers some role list of `selectedBy` selects. */
  edgeRoutersPage(selectedBy: RoleSelection[], query: common.ListQuery | null): Promise<ipb.ListRoutersResponse>;
  /** How many edge routers some role list of `selectedBy` selects. */
  countEdgeRoutersSelected(selectedBy: RoleSelection[]): Promise<number>;
  /** The identity's own configs for services (they replace a service's config of their type). */
  ownConfigs(identityId: string): Promise<OwnConfig[]>;
}

export type { RoleSelection };

/** An identity's own config for a service. */
export interface OwnConfig {
  serviceId: string;
  configId: string;
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
    async edgeRoutersSelected(selectedBy, alsoSelectedBy, only) {
      if (selectedBy.length === 0 || alsoSelectedBy.length === 0) return [];
      const out: ipb.Router__Output[] = [];
      for (let offset = 0; ; offset += PAGE) {
        const page = await client.listRouters({
          kind: 'edge', query: only ?? { limit: PAGE, offset, filter: '', sort: '', roleFilter: [], roleSemantic: '' },
          selectedBy: { selections: selectedBy }, alsoSelectedBy: { selections: alsoSelectedBy },
        });
        if (only) return page.routers;
        out.push(...page.routers);
        if (page.routers.length === 0 || out.length >= Number(page.meta?.totalCount ?? 0)) return out;
      }
    },
    async edgeRoutersPage(selectedBy, query) {
      return client.listRouters({ kind: 'edge', query: query ?? undefined, selectedBy: { selections: selectedBy } });
    },
    async countEdgeRoutersSelected(selectedBy) {
      if (selectedBy.length === 0) return 0;
      const page = await client.listRouters({
        kind: 'edge', query: { limit: 1, offset: 0, filter: '', sort: '', roleFilter: [], roleSemantic: '' }, selectedBy: { selections: selectedBy },
      });
      return Number(page.meta?.totalCount ?? 0);
    },
    async ownConfigs(identityId) {
      const { configs } = await client.listServiceConfigs({ identityId, configs: [] });
      return configs.map((c) => ({ serviceId: c.serviceId, configId: c.configId }));
    },
    async names(ids) {
      if (ids.length === 0) return [];
      const { identities } = await client.getIdentities({ ids: [...ids] });
      return identities.map((x) => ({ id: x.id, name: x.name }));
    },
  };
}

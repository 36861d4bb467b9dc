/**
 * What sessions need from the identity service: identities, the identities a role list selects,
 * and routers. ARCHITECTURE.md rule 1: asked over gRPC, never read from its schema.
 */
import type { IdentityServiceClient } from '@edge/proto';
import { orMissing, type RpcClient } from '@edge/rpc';
import { callerWhere, everything, idIn, PAGE, type RoleSelection } from './common.js';

/** An identity as sessions see it. */
export interface PeerIdentity {
  id: string;
  roleAttributes: string[];
  disabled: boolean;
}

/** The identity service's answers, over its client. */
export function createIdentityPeer(identity: RpcClient<IdentityServiceClient>) {
  return {
    /** The identity: the caller's from its principal (a validated API session: enabled), any other asked. */
    async identity(id: string): Promise<PeerIdentity | undefined> {
      const self = callerWhere((p) => p.identityId === id);
      if (self) return { id, roleAttributes: self.roleAttributes, disabled: false };
      const i = await orMissing(identity.getIdentity({ id }));
      return i && { id: i.id, roleAttributes: i.roleAttributes, disabled: i.disabled };
    },

    /** The identities among `ids` that exist, in one call per 500. */
    async identities(ids: readonly string[]): Promise<Map<string, PeerIdentity>> {
      const out = new Map<string, PeerIdentity>();
      const unique = [...new Set(ids)];
      for (let i = 0; i < unique.length; i += PAGE) {
        const { identities } = await identity.getIdentities({ ids: unique.slice(i, i + PAGE) });
        for (const x of identities) out.set(x.id, { id: x.id, roleAttributes: x.roleAttributes, disabled: x.disabled });
      }
      return out;
    },

    /** The ids of the identities a role list selects (the identity service matches them). */
    async matchIdentities(s: RoleSelection): Promise<string[]> {
      return (await identity.matchIdentities({ roles: s.roles, semantic: s.semantic })).ids;
    },

    /** The routers (edge or transit) among `ids` that exist, in one call per kind and 500. */
    async existingRouters(ids: readonly string[]): Promise<Set<string>> {
      const out = new Set<string>();
      const unique = [...new Set(ids)];
      for (const kind of ['edge', 'transit'] as const) {
        for (let i = 0; i < unique.length; i += PAGE) {
          const chunk = unique.slice(i, i + PAGE);
          const page = await identity.listRouters({ kind, query: { ...everything(0), limit: chunk.length, filter: idIn(chunk) } });
          page.routers.forEach((r) => out.add(r.id));
        }
      }
      return out;
    },

    /** An edge or transit router by id; undefined when neither exists. */
    async router(id: string): Promise<{ id: string; name: string; kind: 'edge' | 'transit' } | undefined> {
      for (const kind of ['edge', 'transit'] as const) {
        const r = await orMissing(identity.getRouter({ kind, id }));
        if (r) return { id: r.id, name: r.name, kind };
      }
      return undefined;
    },
  };
}

export type IdentityPeer = ReturnType<typeof createIdentityPeer>;

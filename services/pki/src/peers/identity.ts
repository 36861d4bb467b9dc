/**
 * What enrollment asks of the identity service, which owns identities and routers.
 */
import { isZitiError } from '@edge/errors';
import type { IdentityServiceClient } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';

/** What enrollment asks of the identity service. */
export interface IdentityPeer {
  /** Whether the identity exists. */
  identityExists(id: string): Promise<boolean>;
  /** Which of these identities exist (start-up sweep). */
  existingIdentities(ids: string[]): Promise<Set<string>>;
  /** Which of these routers of a kind exist (sweeps). */
  existingRouters(kind: 'edge' | 'transit', ids: string[]): Promise<Set<string>>;
  /** Creates the identity of a CA auto-enrollment under a preassigned id. */
  createIdentity(i: { id: string; name: string; roleAttributes: string[]; externalId: string | null }): Promise<void>;
  /** Deletes an identity (an auto-enrollment whose authenticator could not be created). */
  deleteIdentity(id: string): Promise<void>;
  /** The router (edge or transit) whose client certificate has this fingerprint, if any. */
  routerWithFingerprint(fingerprint: string): Promise<{ kind: 'edge' | 'transit'; id: string } | undefined>;
  /** Records a router's enrolled client certificate. */
  setRouterCertificate(kind: 'edge' | 'transit', id: string, fingerprint: string, certPem: string): Promise<void>;
}

const PAGE = 500;

/** Wraps the identity service's client. */
export function createIdentityPeer(identity: RpcClient<IdentityServiceClient>): IdentityPeer {
  return {
    async identityExists(id) {
      try {
        await identity.getIdentity({ id });
        return true;
      } catch (err) {
        if (isZitiError(err) && err.code === 'NOT_FOUND') return false;
        throw err;
      }
    },
    async existingIdentities(ids) {
      if (ids.length === 0) return new Set();
      const { identities } = await identity.getIdentities({ ids });
      return new Set(identities.map((i) => i.id));
    },
    async existingRouters(kind, ids) {
      const out = new Set<string>();
      for (let i = 0; i < ids.length; i += PAGE) {
        const chunk = ids.slice(i, i + PAGE);
        const filter = `id in [${chunk.map((id) => JSON.stringify(id)).join(', ')}]`;
        const { routers } = await identity.listRouters({ kind, query: { filter, limit: chunk.length } });
        routers.forEach((r) => out.add(r.id));
      }
      return out;
    },
    async createIdentity(i) {
      const fields = { name: i.name, typeId: 'Default', isAdmin: false, roleAttributes: i.roleAttributes, externalId: i.externalId ?? undefined };
      await identity.createIdentity({ id: i.id, fields });
    },
    async deleteIdentity(id) {
      await identity.deleteIdentity({ id });
    },
    async routerWithFingerprint(fingerprint) {
      for (const kind of ['edge', 'transit'] as const) {
        const { routers } = await identity.listRouters({ kind, query: { filter: `fingerprint = "${fingerprint.replace(/[^0-9a-f]/gi, '')}"`, limit: 1 } });
        if (routers[0]) return { kind, id: routers[0].id };
      }
      return undefined;
    },
    async setRouterCertificate(kind, id, fingerprint, certPem) {
      await identity.setRouterCertificate({ kind, id, fingerprint, certPem });
    },
  };
}

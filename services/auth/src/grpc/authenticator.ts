/**
 * gRPC handlers of authenticator management: proto ↔ the authenticator operations.
 */
import type { AuthServiceHandlers, auth } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import { listMeta, listParams, planList } from '@edge/zitiql';
import { AUTHENTICATOR_FIELDS } from '../store/authenticator.js';
import type { Authenticators } from '../authenticators.js';
import type { Authenticator } from '../domain/authenticator.js';
import type { EnrolledAuthenticators } from '../enrolled-authenticators.js';
import type { Identities } from '../peers/identity.js';

type Handlers = Pick<AsyncHandlers<AuthServiceHandlers>, 'CreateAuthenticator' | 'GetAuthenticator' | 'ListAuthenticators' | 'UpdateAuthenticator' | 'DeleteAuthenticator' | 'RequestExtendAuthenticator'>;

function toProto(a: Authenticator, identityName: string): auth.Authenticator {
  return {
    id: a.id, identityId: a.identityId, identityName, method: a.method, username: a.username, fingerprint: a.fingerprint, certPem: a.certPem,
    tagsJson: JSON.stringify(a.tags ?? {}), createdAt: a.createdAt.toISOString(), updatedAt: a.updatedAt.toISOString(),
    extendRequestedAt: a.extendRequest?.at.toISOString(), isKeyRollRequested: a.extendRequest?.rollKeys ?? false,
    isIssuedByNetwork: a.isIssuedByNetwork ?? false,
  };
}

function tagsOf(json: string): Record<string, unknown> {
  const v: unknown = json ? JSON.parse(json) : {};
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** Builds the authenticator handlers. */
export function createAuthenticatorHandlers(authenticators: Authenticators, identities: Identities): Handlers {
  const named = async (items: Authenticator[]) => {
    const names = await identities.findMany(items.map((a) => a.identityId));
    return items.map((a) => toProto(a, names.get(a.identityId)?.name ?? ''));
  };

  return {
    async CreateAuthenticator(req) {
      const id = await authenticators.create({ ...req, tags: tagsOf(req.tagsJson) });
      return { id };
    },
    async GetAuthenticator(req) {
      const [one] = await named([await authenticators.get(req.id, req.ownerIdentityId || undefined)]);
      return one!;
    },
    async ListAuthenticators(req) {
      const plan = planList(AUTHENTICATOR_FIELDS, listParams(req.query));
      const { items, total } = await authenticators.list(plan, req.ownerIdentityId || undefined);
      return { authenticators: await named(items), meta: listMeta(plan, total, AUTHENTICATOR_FIELDS) };
    },
    async UpdateAuthenticator(req) {
      await authenticators.update({
        id: req.id, ownerIdentityId: req.ownerIdentityId || undefined, username: req.username, password: req.password,
        tags: tagsOf(req.tagsJson), mask: req.updateMask, currentPassword: req.currentPassword,
      });
      return {};
    },
    async RequestExtendAuthenticator(req) {
      await authenticators.requestExtend(req.id, req.rollKeys);
      return {};
    },
    async DeleteAuthenticator(req) {
      await authenticators.delete(req.id);
      return {};
    },
  };
}

/** Builds the handlers that create the authenticator of a completed enrollment (asked by the pki service). */
export function createEnrolledAuthenticatorHandlers(enrolled: EnrolledAuthenticators): Pick<AsyncHandlers<AuthServiceHandlers>, 'CreateCertAuthenticator' | 'CreateUpdbAuthenticator'> {
  return {
    async CreateCertAuthenticator(req) {
      return { id: await enrolled.createCert(req.identityId, req.certPem) };
    },
    async CreateUpdbAuthenticator(req) {
      return { id: await enrolled.createUpdb(req.identityId, req.username, req.password) };
    },
  };
}

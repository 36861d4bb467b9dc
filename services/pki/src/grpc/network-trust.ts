/**
 * gRPC handlers of the network JWT and the enrollment nonce challenge.
 */
import type { PkiServiceHandlers } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import type { ControllerPki } from '../controller-pki.js';
import { signEnrollmentJwt } from '../domain/enrollment-jwt.js';
import { DEFAULT_NETWORK_JWT_NAME, networkJwtClaims, signNonce } from '../domain/network-trust.js';

export type NetworkTrustHandlers = Pick<AsyncHandlers<PkiServiceHandlers>, 'GetNetworkJwt' | 'SignEnrollmentChallenge'>;

/** Builds the handlers over the controller chain; `advertisedAddress` is the API's host:port. */
export function createNetworkTrustHandlers(pki: ControllerPki, advertisedAddress: string): NetworkTrustHandlers {
  return {
    async GetNetworkJwt() {
      const { server } = await pki.enrollmentSigners();
      return { name: DEFAULT_NETWORK_JWT_NAME, jwt: await signEnrollmentJwt(server, networkJwtClaims(advertisedAddress)) };
    },
    async SignEnrollmentChallenge(req) {
      const { server, caBundlePem } = await pki.enrollmentSigners();
      return signNonce(server, caBundlePem, req.keyId, req.nonce);
    },
  };
}

/**
 * gRPC handlers of the pki service: proto → operation → proto, one file per entity; the
 * handlers that live beside their logic (enrollment with a CA certificate, client, router and
 * service certificates) join them here.
 */
import type { Logger } from '@edge/logging';
import type { PkiServiceHandlers } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import { createCaAutoEnrollment, createCaEnrollmentHandlers } from '../ca-enroll.js';
import type { Cas } from '../cas.js';
import { createClientCertificateHandlers } from '../client-certificates.js';
import type { ControllerPki } from '../controller-pki.js';
import type { Enrollments } from '../enrollments.js';
import type { createIntegrityCheck } from '../integrity.js';
import type { EnrollmentPeers } from '../peers/index.js';
import type { Redeem } from '../redeem.js';
import { createRouterExtensionHandlers } from '../router-certificates.js';
import { createServiceCertificateHandlers } from '../service-certificates.js';
import { createCaHandlers } from './ca.js';
import { createControllerPkiHandlers } from './controller-pki.js';
import { createEnrollmentHandlers } from './enrollment.js';
import { createNetworkTrustHandlers } from './network-trust.js';

/** Dependencies of the handlers. */
export interface HandlerDeps {
  pki: ControllerPki;
  cas: Cas;
  enrollments: Enrollments;
  redeem: Redeem;
  peers: EnrollmentPeers;
  /** The API's host:port, as enrollment JWTs name it. */
  advertisedAddress: string;
  /** The join token of internal mutual TLS; undefined without it. */
  joinToken: string | undefined;
  checkIntegrity: ReturnType<typeof createIntegrityCheck>;
  log: Logger;
}

/** Every handler of PkiService. */
export function createPkiHandlers(deps: HandlerDeps): AsyncHandlers<PkiServiceHandlers> {
  const { pki, cas, redeem, peers } = deps;
  return {
    ...createControllerPkiHandlers(pki, () => cas.trustedPem()),
    ...createCaHandlers(cas),
    ...createCaEnrollmentHandlers(redeem, createCaAutoEnrollment(cas, peers)),
    ...createNetworkTrustHandlers(pki, deps.advertisedAddress),
    ...createClientCertificateHandlers(pki),
    ...createRouterExtensionHandlers(pki, peers),
    ...createEnrollmentHandlers(deps.enrollments, redeem, pki),
    ...createServiceCertificateHandlers(pki, deps.joinToken, deps.log),
    CheckIntegrity: async (req) => ({ issues: await deps.checkIntegrity(req.fix) }),
  };
}

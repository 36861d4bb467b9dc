/**
 * A router's certificates: issued at erott/trott enrollment and again when an enrolled router
 * extends them (OpenZiti's EdgeRouterManager.ExtendEnrollment), which it asks for presenting its
 * current client certificate at TLS.
 */
import { X509Certificate } from 'node:crypto';
import { ZitiError } from '@edge/errors';
import type { PkiServiceHandlers } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import type { ControllerPki } from './controller-pki.js';
import { fingerprintOf } from './domain/ca.js';
import { joinPem } from './domain/ca-certs.js';
import { issueFromCsr, parseCsr } from './domain/csr.js';
import type { EnrollmentPeers } from './peers/index.js';
import type { EnrollmentCerts } from './redeem.js';

/** The CSRs of a router and the names of the fields they came in. */
export interface RouterCsrs {
  clientCsrPem: string;
  serverCsrPem: string;
  fields: { client: string; server: string };
}

/**
 * Issues a server and a client certificate (the client CSR must name the router as its CN) and
 * records the client certificate on the router.
 */
export async function issueRouterCertificates(
  pki: ControllerPki, peers: EnrollmentPeers, kind: 'edge' | 'transit', routerId: string, csrs: RouterCsrs,
): Promise<Omit<EnrollmentCerts, 'method'>> {
  const server = await parseCsr(csrs.serverCsrPem, csrs.fields.server);
  const client = await parseCsr(csrs.clientCsrPem, csrs.fields.client);
  if (client.commonName !== routerId) throw new ZitiError('EDGE_ROUTER_ENROLL_COMMON_NAME_INVALID', { causeMessage: 'the client CSR common name must be the router id' });
  const signers = await pki.enrollmentSigners();
  const serverCert = joinPem([await issueFromCsr(signers.intermediate, server, 'server'), signers.intermediate.certPem]);
  const clientLeaf = await issueFromCsr(signers.intermediate, client, 'client');
  const cert = joinPem([clientLeaf, signers.intermediate.certPem]);
  await peers.setRouterCertificate(kind, routerId, fingerprintOf(new X509Certificate(clientLeaf)), cert);
  return { cert, serverCert, ca: signers.caBundlePem };
}

/** The fingerprint of the presented certificate, '' when there is none or it is unreadable. */
function presentedFingerprint(pem: string): string {
  try {
    return pem.trim() ? fingerprintOf(new X509Certificate(pem)) : '';
  } catch {
    return '';
  }
}

/** The ExtendRouterEnrollment handler: the router whose certificate was presented gets new ones. */
export function createRouterExtensionHandlers(pki: ControllerPki, peers: EnrollmentPeers): Pick<AsyncHandlers<PkiServiceHandlers>, 'ExtendRouterEnrollment'> {
  return {
    async ExtendRouterEnrollment(req) {
      const fingerprint = presentedFingerprint(req.clientCertPem);
      const router = fingerprint ? await peers.routerWithFingerprint(fingerprint) : undefined;
      if (!router) throw new ZitiError('UNAUTHORIZED');
      const certs = await issueRouterCertificates(pki, peers, router.kind, router.id, {
        clientCsrPem: req.certCsrPem, serverCsrPem: req.serverCertCsrPem, fields: { client: 'certCsr', server: 'serverCertCsr' },
      });
      return { ...certs, method: router.kind === 'edge' ? 'erott' : 'trott' };
    },
  };
}

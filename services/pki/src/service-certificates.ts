/**
 * Certificates of the controller's own processes for mutual TLS between them
 * (EDGE_GRPC_TLS=mtls): the join RPC other processes call with a CSR and an HMAC under the join
 * token, and the pki service's own certificate, which it issues itself.
 */
import { ZitiError } from '@edge/errors';
import type { Logger } from '@edge/logging';
import type { PkiServiceHandlers } from '@edge/proto';
import { createMeshCsr, joinAnswerMac, joinRequestMac, JOIN_CLOCK_SKEW_MS, macMatches, meshServerName, type AsyncHandlers, type MeshCertificate } from '@edge/rpc';
import type { ControllerPki } from './controller-pki.js';
import { parseCsr } from './domain/csr.js';
import { isProcessName, issueServiceCertificate } from './domain/service-ca.js';

/** The method callable without a client certificate: how a process gets its first one. */
export const JOIN_METHOD = 'IssueServiceCertificate';

/** Issues process `name` a certificate for `csrPem` under the service CA; returns it and the CA. */
async function issue(pki: ControllerPki, name: string, csrPem: string): Promise<{ certPem: string; caPem: string }> {
  const ca = await pki.serviceCa();
  const certPem = await issueServiceCertificate(ca, await parseCsr(csrPem, 'csrPem'), name, meshServerName(name));
  return { certPem, caPem: ca.certPem };
}

/** The pki service's own certificate: a key made here, issued here; the key never leaves the process. */
export async function issueOwnCertificate(pki: ControllerPki): Promise<MeshCertificate> {
  const { keyPem, csrPem } = await createMeshCsr('pki');
  return { keyPem, ...await issue(pki, 'pki', csrPem) };
}

const refused = (reason: string) => new ZitiError('UNAUTHORIZED', { causeMessage: reason });

/**
 * The join handler. Without a join token (this pki is not in a mutual-TLS deployment) every
 * request is refused. A request must name a process, be made within five minutes of now, and
 * carry the HMAC of its fields under the token; the answer carries the HMAC of the request's
 * HMAC and both certificates, which the caller checks before trusting the CA.
 */
export function createServiceCertificateHandlers(pki: ControllerPki, joinToken: string | undefined, log: Logger, now = () => Date.now()): Pick<AsyncHandlers<PkiServiceHandlers>, 'IssueServiceCertificate'> {
  return {
    async IssueServiceCertificate(req) {
      if (joinToken === undefined) throw refused('internal mutual TLS is off (EDGE_GRPC_TLS)');
      const fields = { name: req.name, timestampMs: Number(req.timestampMs), csrPem: req.csrPem };
      if (!isProcessName(fields.name) || Math.abs(now() - fields.timestampMs) > JOIN_CLOCK_SKEW_MS || !macMatches(req.mac, joinRequestMac(joinToken, fields))) {
        log.warn({ name: fields.name.slice(0, 40) }, 'refused a service certificate request: wrong join token, name or time');
        throw refused('the request is not signed with the join token, names no process, or is too old');
      }
      const { certPem, caPem } = await issue(pki, fields.name, fields.csrPem);
      log.info({ name: fields.name }, 'issued a service certificate');
      return { certPem, caPem, mac: joinAnswerMac(joinToken, req.mac, certPem, caPem) };
    },
  };
}

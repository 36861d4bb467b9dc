/**
 * The pki service as the auth service sees it: the controller's CA chain, which CA a client
 * certificate chains to, and the certificates it issues or extends for identities and API
 * sessions. CAs and signing are owned there; this service only asks (ARCHITECTURE.md rule 1).
 */
import type { PkiServiceClient } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';

/** What this service asks the pki service. */
export interface PkiPeer {
  /** The controller's CA chain (PEM). */
  caCertsPem(): Promise<string>;
  /** The CA a client certificate chain was issued by, and the externalId its claim reads. */
  matchCertificateCa(certChainPem: string): Promise<{ caId: string; externalId: string }>;
  issueIdentityCertificate(identityId: string, csrPem: string): Promise<{ cert: string; ca: string }>;
  issueSessionCertificate(csrPem: string, validSeconds: number): Promise<{ clientCert: string; ca: string }>;
  extendClientCertificate(currentCertPem: string, csrPem: string): Promise<{ clientCert: string; ca: string }>;
}

/** The pki service's answers, over its client. */
export function createPkiPeer(pki: RpcClient<PkiServiceClient>): PkiPeer {
  return {
    caCertsPem: async () => (await pki.getCaCerts({})).pem,
    matchCertificateCa: (certChainPem) => pki.matchCertificateCa({ certChainPem }),
    issueIdentityCertificate: async (identityId, csrPem) => pki.issueIdentityCertificate({ identityId, csrPem, csrField: 'clientCsr' }),
    issueSessionCertificate: (csrPem, validSeconds) => pki.issueSessionCertificate({ csrPem, validSeconds }),
    extendClientCertificate: (currentCertPem, csrPem) => pki.extendClientCertificate({ currentCertPem, csrPem }),
  };
}

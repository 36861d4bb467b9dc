/**
 * gRPC handlers of edge.pki.v1.PkiService.
 */
import type { PkiServiceHandlers } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import type { ControllerPki } from './controller-pki.js';

/** Handlers over the controller chain; the domain shapes already match the messages. */
export function createPkiHandlers(pki: ControllerPki): Pick<AsyncHandlers<PkiServiceHandlers>, 'GetServerTls' | 'GetCaCerts'> {
  return {
    async GetServerTls() {
      const tls = await pki.serverTls();
      return { certChainPem: tls.certChainPem, keyPem: tls.keyPem, caBundlePem: tls.caBundlePem };
    },
    async GetCaCerts() {
      const ca = await pki.caCerts();
      return { pkcs7Base64: ca.pkcs7Base64, pem: ca.pem };
    },
  };
}

/**
 * gRPC handlers of the controller chain: the server TLS material and EST cacerts.
 */
import type { PkiServiceHandlers } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import type { ControllerPki } from '../controller-pki.js';

/** The certificates of the CAs trusted for client certificates besides the controller's own. */
export type TrustedCas = () => Promise<string>;

/** Handlers over the controller chain; the domain shapes already match the messages. */
export function createControllerPkiHandlers(pki: ControllerPki, trustedCas: TrustedCas): Pick<AsyncHandlers<PkiServiceHandlers>, 'GetServerTls' | 'GetCaCerts'> {
  return {
    async GetServerTls() {
      const tls = await pki.serverTls();
      // verified CAs enabled for authentication join the bundle client certificates may chain to
      return { certChainPem: tls.certChainPem, keyPem: tls.keyPem, caBundlePem: tls.caBundlePem + (await trustedCas()) };
    },
    async GetCaCerts() {
      const ca = await pki.caCerts();
      return { pkcs7Base64: ca.pkcs7Base64, pem: ca.pem };
    },
  };
}

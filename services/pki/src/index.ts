/**
 * @edge/pki: the controller CA chain, the HTTPS server certificate and EST cacerts.
 */
export { createPkiService } from './service.js';

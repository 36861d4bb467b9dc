/**
 * `/controllers` on both APIs: the controller instances (gateway replicas) with their API
 * addresses, each registered in the session service at start and marked offline when it stops.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { list } from '@edge/envelope';
import type { session } from '@edge/proto';
import type { Clients } from '../../clients.js';
import type { Router } from '../../http/route.js';
import { baseEntity, withFields } from './entity.js';
import { CLIENT_BASE, MANAGEMENT_BASE } from '../root.js';

/** SHA-1 of the certificate's DER, as OpenZiti prints controller fingerprints; '' when unreadable. */
function fingerprint(pem: string): string {
  try {
    return createHash('sha1').update(new X509Certificate(pem).raw).digest('hex');
  } catch {
    return '';
  }
}

/** `controllerDetail`. */
function renderController(c: session.Controller__Output) {
  const api = (path: string) => [{ url: `${c.apiAddress}${path}`, version: 'v1' }];
  return withFields(baseEntity({ ...c, tagsJson: '{}' }, 'controllers'), {
    name: c.name,
    certPem: c.certPem,
    fingerprint: fingerprint(c.certPem),
    isOnline: c.isOnline,
    lastJoinedAt: c.lastJoinedAt,
    apiAddresses: { 'edge-client': api(CLIENT_BASE), 'edge-management': api(MANAGEMENT_BASE) },
  });
}

/** Registers `/controllers` under one API's base path. */
export function registerControllerRoutes(route: Router, base: string, clients: Clients): void {
  route('GET', `${base}/controllers`, 'session', async () => {
    const { controllers } = await clients.session.listControllers({});
    return { body: list(controllers.map(renderController), { limit: controllers.length, offset: 0, totalCount: controllers.length }) };
  });
}

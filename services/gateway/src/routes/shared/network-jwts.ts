/**
 * `GET /network-jwts` on both APIs, without a session (as OpenZiti's network-jwt_router.go): the
 * JWT an enrollee uses to trust this network, signed like enrollment JWTs.
 */
import { ok } from '@edge/envelope';
import type { Clients } from '../../clients.js';
import type { Router } from '../../http/route.js';

/** Registers `/network-jwts` under one API's base path. */
export function registerNetworkJwtRoutes(route: Router, base: string, clients: Clients): void {
  route('GET', `${base}/network-jwts`, 'public', async () => {
    const { name, jwt } = await clients.pki.getNetworkJwt({});
    return { body: ok([{ name, token: jwt }]) };
  });
}

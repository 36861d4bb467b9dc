/**
 * The `ziti-instance-id` header OpenZiti sets on every answer of both APIs
 * (controller/webapis/client-api.go). The C SDK compares it across answers: when it changes it
 * reads `/version` again and re-sends its posture data (ziti_ctrl.c, posture.c).
 *
 * OpenZiti makes a new id per process start because it keeps posture data in memory. Here the
 * gateway runs as several replicas behind one address and posture data is stored, so the id must
 * be the same on every replica and change only when what a client learned may be stale: it is
 * derived from the controller's CA bundle and this build's version.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

export const INSTANCE_ID_HEADER = 'ziti-instance-id';

/** The instance id of a controller with this CA bundle and version. */
export function instanceId(caPem: string, version: string): string {
  return createHash('sha256').update(version).update('\n').update(caPem).digest('base64url').slice(0, 25);
}

/**
 * Sends the instance id on every answer, errors, unknown routes, CORS preflights and refused URLs
 * included: it is set as the answer goes out, so no hook that answers early can skip it.
 */
export function installInstanceId(app: FastifyInstance, id: string): void {
  app.addHook('onSend', (_req, reply, payload, done) => {
    reply.header(INSTANCE_ID_HEADER, id);
    done(null, payload);
  });
}

/**
 * Terminators: HTTP bodies ↔ proto messages, `terminatorDetail` (management) and
 * `terminatorClientDetail` (client).
 */
import { entityRef } from '@edge/envelope';
import type { session } from '@edge/proto';
import { baseEntity, withFields } from '../../shared/entity.js';
import type { TerminatorBody } from './schemas.js';

/** The fields PUT replaces (the service is fixed at creation and left as it is). */
export const UPDATE_FIELDS = ['service', 'router', 'binding', 'address', 'cost', 'precedence', 'tags'];

export function toFields(b: TerminatorBody): session.TerminatorFields {
  return {
    service: b.service ?? '', router: b.router ?? '', binding: b.binding ?? '', address: b.address ?? '', identity: b.identity ?? '',
    identitySecret: b.identitySecret ?? '', cost: b.cost ?? 0, precedence: b.precedence ?? '', tagsJson: JSON.stringify(b.tags ?? {}),
  };
}

const serviceRef = (t: session.Terminator__Output) => entityRef('services', 'services', t.serviceId, t.serviceName);

/** `terminatorDetail`. The secret is never returned; no circuits run here, so the dynamic cost is the cost. */
export function renderTerminator(t: session.Terminator__Output) {
  const routers = t.routerKind === 'edge' ? 'edge-routers' : 'transit-routers';
  return withFields(baseEntity(t, 'terminators'), {
    serviceId: t.serviceId,
    service: serviceRef(t),
    routerId: t.routerId,
    router: entityRef(routers, routers, t.routerId, t.routerName),
    binding: t.binding,
    address: t.address,
    identity: t.identity,
    cost: t.cost,
    dynamicCost: t.cost,
    precedence: t.precedence,
    ...(t.savedPrecedence ? { savedPrecedence: t.savedPrecedence } : {}),
    hostId: t.hostId,
    isSystem: false,
  });
}

/** `terminatorClientDetail`: what a client may know of where its service is hosted. */
export function renderClientTerminator(t: session.Terminator__Output) {
  return withFields(baseEntity(t, 'terminators'), { serviceId: t.serviceId, service: serviceRef(t), routerId: t.routerId, identity: t.identity });
}

/**
 * Terminators: where a service is hosted, a binding and address on a router (OpenZiti
 * controller/db/terminator_store.go). Service, identity and identity secret are set at creation
 * and never change; an update leaves them as they are, as OpenZiti's store does.
 */
import { fieldError } from '@edge/errors';

export type Precedence = 'default' | 'required' | 'failed';

const PRECEDENCES: readonly Precedence[] = ['default', 'required', 'failed'];

export interface Terminator {
  id: string;
  serviceId: string;
  routerId: string;
  binding: string;
  address: string;
  identity: string;
  cost: number;
  precedence: Precedence;
  savedPrecedence: Precedence | null;
  hostId: string;
  tags: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/** What a create or update supplies. */
export interface TerminatorInput {
  serviceId: string;
  routerId: string;
  binding: string;
  address: string;
  identity: string;
  identitySecret: string;
  cost: number;
  precedence: Precedence;
  tags: Record<string, unknown>;
}

/** The JSON names an update mask may carry, and the input key each one writes. */
export const TERMINATOR_KEYS: Readonly<Record<string, keyof TerminatorInput>> = {
  router: 'routerId', binding: 'binding', address: 'address', cost: 'cost', precedence: 'precedence', tags: 'tags',
};

/** Fields OpenZiti takes on update and ignores (fixed at creation). */
export const FIXED_AT_CREATION = new Set(['service', 'identity', 'identitySecret']);

/** `''` means default, as OpenZiti reads a missing precedence. */
export function parsePrecedence(raw: string): Precedence {
  if (raw === '') return 'default';
  if ((PRECEDENCES as readonly string[]).includes(raw)) return raw as Precedence;
  throw fieldError('precedence', 'must be one of default, required, failed', raw);
}

/** Validates what a terminator needs, naming the first field that fails. */
export function validateTerminator(t: TerminatorInput): void {
  if (!t.serviceId) throw fieldError('service', 'is required', t.serviceId);
  if (!t.routerId) throw fieldError('router', 'is required', t.routerId);
  if (!t.binding) throw fieldError('binding', 'is required', t.binding);
  if (!t.address) throw fieldError('address', 'is required', t.address);
  if (!Number.isInteger(t.cost) || t.cost < 0 || t.cost > 65535) throw fieldError('cost', 'must be an integer from 0 to 65535', t.cost);
}

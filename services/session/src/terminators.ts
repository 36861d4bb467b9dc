/**
 * Creating, reading, changing and deleting terminators. The service (policy service) and router
 * (identity service, edge or transit) a terminator names must exist; an unknown one is
 * REFERENCED_ENTITY_NOT_FOUND on that field. Reads carry the names of both, looked up once per
 * distinct id of a page.
 */
import { fieldError, notFound, ZitiError } from '@edge/errors';
import { newId } from '@edge/ids';
import type { Logger } from '@edge/logging';
import type { ListPlan } from '@edge/zitiql';
import { FIXED_AT_CREATION, TERMINATOR_KEYS, validateTerminator, type Terminator, type TerminatorInput } from './domain/terminator.js';
import type { SessionPeers } from './peers/index.js';
import type { TerminatorRecords } from './store/terminator.js';

/** A terminator with the names of its service and router ('' and kind '' when gone). */
export interface TerminatorView {
  terminator: Terminator;
  serviceName: string;
  routerName: string;
  routerKind: string;
}

type Peers = Pick<SessionPeers, 'service' | 'router'>;

function missing(field: string, entity: string, id: string): ZitiError {
  return new ZitiError('REFERENCED_ENTITY_NOT_FOUND', { cause: { field, reason: `${entity} not found`, value: id }, causeMessage: `${entity} ${id} not found` });
}

function inputOf(t: Terminator): TerminatorInput {
  return {
    serviceId: t.serviceId, routerId: t.routerId, binding: t.binding, address: t.address, identity: t.identity, identitySecret: '',
    cost: t.cost, precedence: t.precedence, tags: t.tags,
  };
}

export function createTerminators({ records, peers, log }: { records: TerminatorRecords; peers: Peers; log: Logger }) {
  const requireRouter = async (id: string) => {
    if (!(await peers.router(id))) throw missing('router', 'router', id);
  };

  /** Each terminator with the names of its service and router. */
  const withNames = async (terminators: Terminator[]): Promise<TerminatorView[]> => {
    const services = new Map<string, ReturnType<Peers['service']>>();
    const routers = new Map<string, ReturnType<Peers['router']>>();
    for (const t of terminators) {
      if (!services.has(t.serviceId)) services.set(t.serviceId, peers.service(t.serviceId));
      if (!routers.has(t.routerId)) routers.set(t.routerId, peers.router(t.routerId));
    }
    return Promise.all(terminators.map(async (terminator) => {
      const [service, router] = await Promise.all([services.get(terminator.serviceId), routers.get(terminator.routerId)]);
      return { terminator, serviceName: service?.name ?? '', routerName: router?.name ?? '', routerKind: router?.kind ?? '' };
    }));
  };

  const existing = async (id: string): Promise<Terminator> => {
    const t = await records.get(id);
    if (!t) throw notFound('terminator', id);
    return t;
  };

  return {
    async create(input: TerminatorInput): Promise<string> {
      validateTerminator(input);
      if (!(await peers.service(input.serviceId))) throw missing('service', 'service', input.serviceId);
      await requireRouter(input.routerId);
      const t = await records.insert(newId(), input);
      log.info({ terminatorId: t.id, serviceId: t.serviceId, routerId: t.routerId }, 'terminator created');
      return t.id;
    },

    async get(id: string): Promise<TerminatorView> {
      return (await withNames([await existing(id)]))[0]!;
    },

    /** A page of terminators, of one service when `serviceId` is set (NOT_FOUND for an unknown one). */
    async list(plan: ListPlan, serviceId = ''): Promise<{ items: TerminatorView[]; total: number }> {
      if (serviceId && !(await peers.service(serviceId))) throw notFound('service', serviceId);
      const { items, total } = await records.list(plan, serviceId);
      return { items: await withNames(items), total };
    },

    /** Changes the masked fields; service, identity and secret stay as created (as OpenZiti). */
    async update(id: string, input: TerminatorInput, mask: readonly string[]): Promise<void> {
      const current = await existing(id);
      const next = inputOf(current);
      for (const name of mask) {
        if (FIXED_AT_CREATION.has(name)) continue;
        const key = Object.hasOwn(TERMINATOR_KEYS, name) ? TERMINATOR_KEYS[name] : undefined;
        if (key === undefined) throw fieldError(name, 'is not a writable field', name);
        (next as unknown as Record<string, unknown>)[key] = input[key];
      }
      validateTerminator(next);
      if (next.routerId !== current.routerId) await requireRouter(next.routerId);
      if (!(await records.update(id, next))) throw notFound('terminator', id);
    },

    async delete(id: string): Promise<void> {
      await existing(id);
      await records.deleteOf({ ids: [id] });
    },
  };
}

export type Terminators = ReturnType<typeof createTerminators>;

/**
 * Test harness: the session service on a real Postgres schema, a real NATS subject prefix and a
 * real gRPC port, with small in-test identity, policy and auth services standing in for the
 * owners of identities, grants and API sessions (the only things outside the process under
 * test). The stand-ins record what they were asked, so tests see which identities a change made
 * the service look at, and which calls a request made.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Bus } from '@edge/bus';
import type { EdgeService } from '@edge/lifecycle';
import { notFound } from '@edge/errors';
import { silentLogger } from '@edge/logging';
import { createServiceInfra, testPrefix, withTeardown } from '@edge/testing';
import { contracts, type policy, type AuthServiceHandlers, type IdentityServiceHandlers, type PolicyServiceHandlers, type SessionServiceClient } from '@edge/proto';
import { createRpcClient, createRpcServer, stubHandlers, type RequestContext, type RpcClient, type RpcServer } from '@edge/rpc';
import type { Kysely } from 'kysely';
import { createSessionService } from '../src/index.js';


/** A service policy as the stand-in policy service evaluates it. */
export interface FakePolicy {
  id: string;
  type: 'Dial' | 'Bind';
  semantic: 'AllOf' | 'AnyOf';
  identityRoles: string[];
  serviceRoles: string[];
  /** Posture checks of the policy (ids in {@link World.postureChecks}). */
  checkIds?: string[];
}

/** What the stand-ins hold and what they were asked. */
export interface World {
  identities: Map<string, { roleAttributes: string[]; disabled?: boolean }>;
  /** Services by id; `edgeRouters`, when given, are the ones usable for it instead of {@link World.edgeRouters}. */
  services: Map<string, { roleAttributes: string[]; edgeRouters?: string[] }>;
  policies: FakePolicy[];
  apiSessions: Set<string>;
  /** Posture checks by id: type and data. */
  postureChecks: Map<string, { typeId: string; data: Record<string, unknown> }>;
  /** Edge routers every identity may use for every service. */
  edgeRouters: string[];
  /** Identity ids in every GetIdentities and GetServiceGrants call, in order. */
  askedIdentities: string[];
  /** GetServiceGrants calls. */
  grantCalls: number;
  /** GetIdentityAccesses calls. */
  identityAccessCalls: number;
  /** GetIdentityAccesses fails when set (the policy service overloaded, say). */
  failIdentityAccesses?: boolean;
  /** What each GetIdentityAccesses call said it held, and whether it was answered unchanged. */
  identityAccessAsks: Array<{ knownVersion: string; unchanged: boolean }>;
  /** Every call a stand-in answered, with the request id it carried. */
  calls: StandInCall[];
}

/** One call answered by a stand-in. */
export interface StandInCall {
  service: 'identity' | 'policy' | 'auth';
  method: string;
  requestId: string;
}

/** `handlers` recording each call they answer in `calls`. */
function recording<H>(service: StandInCall['service'], calls: StandInCall[], handlers: H): H {
  return new Proxy(handlers as object, {
    get: (target, method) => {
      const h = (target as Record<string | symbol, unknown>)[method];
      if (typeof h !== 'function' || typeof method !== 'string') return h;
      return (req: unknown, ctx: RequestContext) => {
        calls.push({ service, method, requestId: ctx.requestId });
        return (h as (req: unknown, ctx: RequestContext) => unknown)(req, ctx);
      };
    },
  }) as H;
}

/** Whether `roles` under `semantic` select an entity, as libs/roles compiles them to SQL. */
export function selects(roles: readonly string[], semantic: string, id: string, attributes: readonly string[]): boolean {
  if (roles.includes('#all') || roles.includes(`@${id}`)) return true;
  const attrs = roles.filter((r) => r.startsWith('#')).map((r) => r.slice(1));
  if (attrs.length === 0) return false;
  return semantic === 'AllOf' ? attrs.every((a) => attributes.includes(a)) : attrs.some((a) => attributes.includes(a));
}

const quoted = (filter: string | undefined) => [...(filter ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1]!);

async function serve(world: World): Promise<{ addr: string; server: RpcServer }> {
  const server = createRpcServer('stand-ins', silentLogger());
  const identity = (id: string) => ({ id, name: id, roleAttributes: world.identities.get(id)!.roleAttributes, disabled: world.identities.get(id)!.disabled ?? false }) as never;
  server.add<IdentityServiceHandlers>(contracts.identity(), recording('identity', world.calls, stubHandlers<IdentityServiceHandlers>({
    async GetIdentity(req) {
      world.askedIdentities.push(req.id);
      if (!world.identities.has(req.id)) throw notFound('identity', req.id);
      return identity(req.id);
    },
    async GetIdentities(req) {
      world.askedIdentities.push(...req.ids);
      return { identities: req.ids.filter((id) => world.identities.has(id)).map(identity) };
    },
    async MatchIdentities(req) {
      return { ids: [...world.identities].filter(([id, i]) => selects(req.roles, req.semantic, id, i.roleAttributes)).map(([id]) => id) };
    },
    async ListRouters(req) {
      const routers = req.kind === 'edge' && req.selectedBy ? world.edgeRouters.map((id) => ({ id, name: id, kind: 'edge', cost: 0 }) as never) : [];
      return { routers, meta: { totalCount: routers.length } as never };
    },
  })));
  /** The grant of one (identity, service), as the policy service answers it; undefined when none. */
  const grantOf = (identityId: string, roleAttributes: readonly string[], serviceId: string) => {
    const service = world.services.get(serviceId);
    const granting = service ? world.policies.filter((p) => selects(p.identityRoles, p.semantic, identityId, roleAttributes)
      && selects(p.serviceRoles, p.semantic, serviceId, service.roleAttributes)) : [];
    if (granting.length === 0) return undefined;
    // Typed definitions carry the type's fields by their API names, as the checks' data holds them.
    const checks = (ids: string[] = []) => ids.filter((id) => world.postureChecks.has(id))
      .map((id) => ({ id, name: id, typeId: world.postureChecks.get(id)!.typeId, ...world.postureChecks.get(id)!.data }));
    const postureQueries = granting.map((p) => ({ policyId: p.id, policyName: p.id, policyType: p.type, checks: checks(p.checkIds) }));
    return { identityId, serviceId, permissions: [...new Set(granting.map((p) => p.type))].sort(), postureQueries };
  };
  /** The access of one request, as the policy service answers it; undefined where it answers NOT_FOUND. */
  const accessOf = (req: policy.GetServiceAccessRequest__Output) => {
    world.askedIdentities.push(req.identityId);
    if (!world.services.has(req.serviceId)) return undefined;
    const g = grantOf(req.identityId, req.roleAttributes, req.serviceId);
    if (!g && req.grantedOnly) return undefined;
    const usable = world.services.get(req.serviceId)!.edgeRouters ?? world.edgeRouters;
    const edgeRouters = req.edgeRouters ? usable.map((id) => ({ id, name: id, cost: 0 })) : [];
    return { serviceId: req.serviceId, serviceName: req.serviceId, permissions: g?.permissions ?? [], policies: g?.postureQueries ?? [], edgeRouters } as never;
  };
  server.add<PolicyServiceHandlers>(contracts.policy(), recording('policy', world.calls, stubHandlers<PolicyServiceHandlers>({
    async GetServiceGrants(req) {
      world.grantCalls++;
      const grants = req.queries.flatMap((q) => {
        world.askedIdentities.push(q.identityId);
        return q.serviceIds.flatMap((serviceId) => grantOf(q.identityId, q.roleAttributes, serviceId) ?? []);
      });
      return { grants };
    },
    // One (identity, service) per call: what re-evaluation asked before GetServiceGrants.
    async GetServiceForIdentity(req) {
      world.grantCalls++;
      world.askedIdentities.push(req.identityId);
      const g = grantOf(req.identityId, req.roleAttributes, req.serviceId);
      if (!g) throw notFound('service', req.serviceId);
      return { id: req.serviceId, name: req.serviceId, permissions: g.permissions, postureQueries: g.postureQueries } as never;
    },
    // What session creation and look-ups ask: the grant, its checks and the usable edge routers.
    async GetServiceAccess(req) {
      const a = accessOf(req);
      if (!a) throw notFound('service', req.serviceId);
      return a;
    },
    // Many of them at once, as the policy service answers them: notFound where GetServiceAccess would be NOT_FOUND.
    async GetServiceAccesses(req) {
      return { results: req.requests.map((r) => accessOf(r)).map((a) => (a ? { access: a } : { notFound: true })) };
    },
    // Every granted service's access at once, routers, router sets and policies listed once.
    async GetIdentityAccesses(req) {
      world.identityAccessCalls++;
      if (world.failIdentityAccesses) throw new Error('the stand-in fails GetIdentityAccesses');
      const accesses = [...world.services.keys()].sort()
        .map((serviceId) => accessOf({ identityId: req.identityId, roleAttributes: req.roleAttributes, serviceId, grantedOnly: true, edgeRouters: true } as never) as policy.ServiceAccess | undefined)
        .filter((a) => a !== undefined);
      if (accesses.length > req.maxServices) return { complete: false };
      const routers: string[] = [];
      const policies: policy.PostureQueryGroup[] = [];
      const index = <T>(list: T[], key: (x: T) => string, x: T) => {
        const i = list.findIndex((y) => key(y) === key(x));
        return i >= 0 ? i : list.push(x) - 1;
      };
      const sets: string[] = [];
      const out = accesses.map((a) => {
        const ids = a.edgeRouters!.map((r) => index(routers, (x) => x, r.id!));
        return { serviceId: a.serviceId, serviceName: a.serviceName, permissions: a.permissions, routerSet: index(sets, (x) => x, ids.join(',')), policies: a.policies!.map((p) => index(policies, (x) => x.policyId!, p)) };
      });
      const answer = {
        complete: true, accesses: out, policies,
        edgeRouters: routers.map((id) => ({ id, name: id, cost: 0 }) as never),
        routerSets: sets.map((k) => ({ routers: k === '' ? [] : k.split(',').map(Number) })),
      };
      // The version of the tables, as the stand-in has them: the answer itself.
      const version = createHash('sha256').update(JSON.stringify(answer)).digest('hex');
      const unchanged = req.knownVersion === version;
      world.identityAccessAsks.push({ knownVersion: req.knownVersion, unchanged });
      return unchanged ? { complete: true, unchanged, version } : { ...answer, version };
    },
    async MatchServices(req) {
      return { ids: [...world.services].filter(([id, s]) => selects(req.roles, req.semantic, id, s.roleAttributes)).map(([id]) => id) };
    },
    async ListServices(req) {
      const services = quoted(req.query?.filter).filter((id) => world.services.has(id)).map((id) => ({ id, name: id }) as never);
      return { services, meta: { totalCount: services.length } as never };
    },
  })));
  server.add<AuthServiceHandlers>(contracts.auth(), recording('auth', world.calls, stubHandlers<AuthServiceHandlers>({
    async GetApiSession(req) {
      if (!world.apiSessions.has(req.id)) throw notFound('apiSession', req.id);
      return { id: req.id, isMfaRequired: false, isMfaComplete: false, updatedAt: new Date().toISOString() } as never;
    },
    async ListApiSessions(req) {
      const apiSessions = quoted(req.query?.filter).filter((id) => world.apiSessions.has(id))
        .map((id) => ({ id, isMfaRequired: false, isMfaComplete: false, updatedAt: new Date().toISOString() }) as never);
      return { apiSessions, meta: { totalCount: apiSessions.length } as never };
    },
  })));
  const port = await server.listen('127.0.0.1:0');
  server.setServing(true);
  return { addr: `127.0.0.1:${port}`, server };
}

/**
 * The services session creation is tried on: `svc` dialed by #dialers, `svc-bind` bound by them,
 * `svc-hidden` granted to nobody, `svc-no-routers` without edge routers, `svc-os` behind an OS
 * check (Linux 5 or later); edge routers er-1 and er-2.
 */
export function grantSessionServices(world: World): void {
  world.services.set('svc', { roleAttributes: ['s'] });
  world.services.set('svc-bind', { roleAttributes: ['b'] });
  world.services.set('svc-hidden', { roleAttributes: ['h'] });
  world.services.set('svc-no-routers', { roleAttributes: ['s'], edgeRouters: [] });
  world.services.set('svc-os', { roleAttributes: ['os'] });
  world.policies.push(
    { id: 'dial', type: 'Dial', semantic: 'AllOf', identityRoles: ['#dialers'], serviceRoles: ['#s'] },
    { id: 'bind', type: 'Bind', semantic: 'AllOf', identityRoles: ['#dialers'], serviceRoles: ['#b'] },
    { id: 'os-dial', type: 'Dial', semantic: 'AllOf', identityRoles: ['#dialers'], serviceRoles: ['#os'], checkIds: ['linux'] },
  );
  world.postureChecks.set('linux', { typeId: 'OS', data: { operatingSystems: [{ type: 'Linux', versions: ['>=5.0'] }] } });
  world.edgeRouters.push('er-1', 'er-2');
}

/** Everything one test file works with. */
export interface Harness {
  world: World;
  bus: Bus;
  /** Raw access to the session schema, to seed sessions and look at them. */
  db: Kysely<any>;
  /** A client of the session service under test. */
  client: RpcClient<SessionServiceClient>;
  /** Adds a Dial session of `identityId` for `serviceId` on a new API session; its id. */
  addSession(identityId: string, serviceId: string): Promise<string>;
  /** The ids of the sessions that remain, sorted. */
  sessionIds(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * A fresh schema, subject prefix and stand-ins, and the session service started on them. A set-up
 * that fails half-way removes what it made; `close` removes everything (schema, stream).
 */
export async function createHarness(env: Record<string, string> = {}): Promise<Harness> {
  const prefix = testPrefix();
  const world: World = {
    identities: new Map(), services: new Map(), policies: [], apiSessions: new Set(), postureChecks: new Map(), edgeRouters: [], askedIdentities: [], grantCalls: 0, identityAccessCalls: 0, identityAccessAsks: [], calls: [],
  };
  return withTeardown(async (teardown) => {
    const fakes = await serve(world);
    teardown.add(() => fakes.server.stop(100));
    const { config, conn, bus, db } = await createServiceInfra(teardown, 'session', prefix, {
      EDGE_IDENTITY_GRPC_ADDR: fakes.addr, EDGE_POLICY_GRPC_ADDR: fakes.addr, EDGE_AUTH_GRPC_ADDR: fakes.addr, EDGE_PKI_GRPC_ADDR: fakes.addr,
      EDGE_GRPC_DEADLINE_MS: '5000', EDGE_DATA_DIR: '/tmp', ...env,
    });
    const service: EdgeService = createSessionService({ config, conn, bus, log: silentLogger() });
    teardown.add(() => service.stop());
    await service.start();
    const client = createRpcClient(contracts.session(), `127.0.0.1:${service.port()}`, { deadlineMs: 5000 });
    teardown.add(() => client.close());
    return harness(world, bus, db, client, () => teardown.run());
  });
}

function harness(world: World, bus: Bus, db: Kysely<any>, client: RpcClient<SessionServiceClient>, close: () => Promise<void>): Harness {
  return {
    world, bus, db, client, close,
    async addSession(identityId, serviceId) {
      const id = `s-${randomBytes(6).toString('hex')}`;
      const apiSessionId = `a-${randomBytes(6).toString('hex')}`;
      world.apiSessions.add(apiSessionId);
      await db.insertInto('sessions').values({
        id, token: randomBytes(16).toString('hex'), api_session_id: apiSessionId, identity_id: identityId, service_id: serviceId,
        service_name: serviceId, type: 'Dial', service_policy_ids: [], tags: '{}',
      }).execute();
      return id;
    },
    async sessionIds() {
      return (await db.selectFrom('sessions').select('id').orderBy('id').execute()).map((r: { id: string }) => r.id);
    },
  };
}

/**
 * The SQL of the two hot reads, pinned: a client's service list (ListServicesForIdentity) and
 * what an identity may do with one service (GetServiceAccess, read on every session creation:
 * from parts kept under the tables' access version, src/access-reader.ts), or with each of its
 * services (GetIdentityAccesses, the same parts).
 * The handlers run over stores whose Kysely records every statement; each is counted and
 * explained (with its parameters, analysed) over tables of a few thousand rows, and none may
 * read a whole table of that size.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kysely, sql, type CompiledQuery } from 'kysely';
import { openConnection, type DbConnection } from '@edge/db';
import { seqScansOf } from '@edge/testing';
import type { policy as pb } from '@edge/proto';
import { createEvaluationCache } from '../src/evaluation-cache.js';
import { createAccessReader } from '../src/access-reader.js';
import { createAccessHandlers } from '../src/grpc/access.js';
import type { HandlerDeps } from '../src/grpc/common.js';
import { createEvaluationHandlers } from '../src/grpc/evaluation.js';
import type { IdentityDirectory, OwnConfig } from '../src/grpc/identities.js';
import { createEdgeRouterModel } from '../src/store/edge-router-model.js';
import { createPolicyStores } from '../src/store/index.js';
import { createHarness, type Harness } from './harness.js';

const DATABASE_URL = process.env.EDGE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ROWS = 3_000;
const SERVICES = 10_000;
const INTERCEPT = 'g7cIWbcGg';

/** The tables that grow with a network; a scan of any of them is what this file forbids. */
const LARGE = ['services', 'service_configs', 'configs', 'service_policies', 'posture_checks', 'edge_router_policies', 'service_edge_router_policies', 'edge_routers'];

let h: Harness;
let conn: DbConnection;
let db: Kysely<any>;
const ran: CompiledQuery[] = [];
/** What the identity service would answer: the caller's own configs, and the edge routers asked for. */
const own: OwnConfig[] = [];
const routerCalls: Array<{ selectedBy: number; alsoSelectedBy: number }> = [];

const identities: IdentityDirectory = {
  resolve: async () => [],
  names: async () => [],
  edgeRouters: async () => [],
  async edgeRoutersSelected(selectedBy, alsoSelectedBy) {
    routerCalls.push({ selectedBy: selectedBy.length, alsoSelectedBy: alsoSelectedBy.length });
    return [];
  },
  edgeRoutersPage: async () => ({ routers: [], meta: { totalCount: 0 } }),
  countEdgeRoutersSelected: async () => 0,
  ownConfigs: async () => own,
};

let deps: HandlerDeps;
let handlers: ReturnType<typeof createEvaluationHandlers> & ReturnType<typeof createAccessHandlers>;
/** The access handlers with the read model of edge routers not yet filled (the identity service matches the routers). */
let unfilled: ReturnType<typeof createAccessHandlers>;

beforeAll(async () => {
  h = await createHarness();
  const t = (name: string) => sql.id(h.schema, name);
  const n = sql`generate_series(1, ${ROWS}) n`;
  const each = sql`generate_series(1, ${SERVICES}) n`;
  // Services in 100 groups, each with its own config; policy k lets #team-k dial #g<k % 100>,
  // every tenth also names posture check #pc-k.
  await sql`insert into ${t('services')} (id, name, role_attributes)
    select 's' || n, 'svc-' || n, array['g' || (n % 100), case when n % 2 = 0 then 'even' else 'odd' end] from ${each}`.execute(h.db);
  await sql`insert into ${t('configs')} (id, name, config_type_id, data)
    select 'cfg' || n, 'cfg-' || n, ${INTERCEPT}, jsonb_build_object('addresses', jsonb_build_array('svc' || n || '.ziti')) from ${each}`.execute(h.db);
  await sql`insert into ${t('service_configs')} (service_id, config_id, config_type_id) select 's' || n, 'cfg' || n, ${INTERCEPT} from ${each}`.execute(h.db);
  await sql`insert into ${t('posture_checks')} (id, name, type_id, role_attributes, data)
    select 'pc' || n, 'pc-' || n, 'DOMAIN', array['pc-' || n], '{"domains":["corp.example"]}'::jsonb from ${n}`.execute(h.db);
  await sql`insert into ${t('service_policies')} (id, name, type, semantic, identity_roles, identity_attrs, service_roles, service_attrs,
      posture_check_roles, posture_check_attrs)
    select 'sp' || n, 'sp-' || n, 'Dial', 'AllOf', array['#team-' || n], array['team-' || n], array['#g' || (n % 100)], array['g' || (n % 100)],
      case when n % 10 = 0 then array['#pc-' || n] else '{}' end, case when n % 10 = 0 then array['pc-' || n] else '{}' end from ${n}`.execute(h.db);
  await sql`insert into ${t('edge_router_policies')} (id, name, semantic, identity_roles, identity_attrs, edge_router_roles, edge_router_attrs)
    select 'erp' || n, 'erp-' || n, 'AnyOf', array['#team-' || n], array['team-' || n], array['#er-' || (n % 10)], array['er-' || (n % 10)] from ${n}`.execute(h.db);
  await sql`insert into ${t('service_edge_router_policies')} (id, name, semantic, service_roles, service_attrs, edge_router_roles, edge_router_attrs)
    select 'serp' || n, 'serp-' || n, 'AllOf', array['#g' || (n % 100)], array['g' || (n % 100)], array['#er-' || (n % 10)], array['er-' || (n % 10)] from ${n}`.execute(h.db);
  // Router n holds er-<n % 100>: er-0 (what erp10 and the service edge router policies of #g10 select) is held by 30 routers.
  await sql`insert into ${t('edge_routers')} (id, name, role_attributes, hostname, created_at, updated_at)
    select 'er' || n, 'router-' || n, array['er-' || (n % 100)], 'er' || n || '.example', timestamptz '2026-01-01' + n * interval '1 second', now() from ${n}`.execute(h.db);
  for (const table of LARGE) await sql`analyze ${t(table)}`.execute(h.db);

  conn = await openConnection({ url: DATABASE_URL });
  db = new Kysely<any>({ dialect: conn.dialect(), log: (e) => { ran.push(e.query); } }).withSchema(h.schema);
  const off = () => createEvaluationCache<never>({ ttlMs: 0 });
  const edgeRouters = createEdgeRouterModel(db);
  await edgeRouters.markFilled();
  const stores = createPolicyStores(db);
  deps = { stores, events: undefined as never, identities, edgeRouters, serviceLists: off(), serviceDigests: off(), accessReader: createAccessReader(stores.accessParts) } as HandlerDeps;
  handlers = { ...createEvaluationHandlers(deps), ...createAccessHandlers(deps) };
  unfilled = createAccessHandlers({ ...deps, edgeRouters: { ...edgeRouters, isFilled: async () => false } });
}, 120_000);

afterAll(async () => {
  await db?.destroy();
  await conn?.close();
  await h?.close();
});

/** The statements `call` runs. */
async function statementsOf(call: () => Promise<unknown>): Promise<CompiledQuery[]> {
  ran.length = 0;
  await call();
  return [...ran];
}

const scansOf = (statements: CompiledQuery[]) => seqScansOf(db, statements, LARGE);

const query = { limit: 500, offset: 0, filter: '', sort: '', roleFilter: [], roleSemantic: '', every: false, continueAt: 0, withoutTotal: false };

describe('a client service list', () => {
  const list = (): Promise<pb.ListServicesResponse> => handlers.ListServicesForIdentity({
    identityId: 'i1', roleAttributes: ['team-10', 'team-20'], configTypes: ['intercept.v1'], query, policyType: '', withDigest: false,
  } as pb.ListServicesForIdentityRequest__Output);

  it('renders grants, posture queries, configs and the identity\'s own config in five indexed statements', async () => {
    own.splice(0, own.length, { serviceId: 's10', configId: 'cfg20' });
    const statements = await statementsOf(async () => {
      const page = await list();
      // team-10 reaches #g10, team-20 #g20: 100 + 100 services, through policies naming #pc-10 and #pc-20.
      expect(page.meta!.totalCount).toBe(200);
      const s10 = page.services!.find((s) => s.id === 's10')!;
      expect(s10.postureQueries!.map((g) => [g.policyId, g.checks!.map((c) => c.id)])).toEqual([['sp10', ['pc10']]]);
      expect(JSON.parse(s10.configJson!)).toEqual({ 'intercept.v1': { addresses: ['svc20.ziti'] } });
    });
    // grants page, granting policies with their checks, config types, config data, own configs.
    expect(statements).toHaveLength(5);
    expect(await scansOf(statements)).toEqual([]);
  });

  it('reads no config when none is asked for: two statements', async () => {
    const statements = await statementsOf(() => handlers.ListServicesForIdentity({
      identityId: 'i1', roleAttributes: ['team-10'], configTypes: [], query, policyType: '', withDigest: false,
    } as pb.ListServicesForIdentityRequest__Output));
    expect(statements).toHaveLength(2);
    expect(await scansOf(statements)).toEqual([]);
  });
});

describe('a client service list with the digest of the whole list (the gateway\'s first fill)', () => {
  const caller = { identityId: 'i1', roleAttributes: ['team-10', 'team-20'] };
  const withDigest = (configTypes: string[], q: Partial<typeof query> = {}): Promise<pb.ListServicesResponse> => handlers.ListServicesForIdentity({
    ...caller, configTypes, query: { ...query, ...q }, policyType: '', withDigest: true,
  } as pb.ListServicesForIdentityRequest__Output);
  const digestAlone = () => handlers.GetServiceListDigest(caller as pb.GetServiceListDigestRequest__Output);

  it('reads a page holding every service once for both, in five indexed statements', async () => {
    own.splice(0, own.length, { serviceId: 's10', configId: 'cfg20' });
    let page!: pb.ListServicesResponse;
    const statements = await statementsOf(async () => { page = await withDigest([]); });
    // grants page, granting policies with their checks, every config type, config data, the
    // identity's own config: the page and the digest apart read the grants and the policies
    // twice (seven).
    expect(statements).toHaveLength(5);
    expect(await scansOf(statements)).toEqual([]);
    expect(page.meta!.totalCount).toBe(200);
    expect(page.services).toHaveLength(200);
    // No config type asked for: none is sent, though the digest counts them all.
    expect(page.services!.every((s) => s.configJson === '{}')).toBe(true);
    const alone = await digestAlone();
    expect(page.digest!.digest).toBe(alone.digest);
    expect(page.digest!.postureChecks!.map((c) => c.id)).toEqual(['pc10', 'pc20']);
  });

  it('sends the configs of the types asked for, and the same digest in any order', async () => {
    own.splice(0, own.length, { serviceId: 's10', configId: 'cfg20' });
    const page = await withDigest(['intercept.v1'], { sort: 'name desc' });
    expect(page.services![0]!.name! > page.services!.at(-1)!.name!).toBe(true);
    expect(JSON.parse(page.services!.find((s) => s.id === 's10')!.configJson!)).toEqual({ 'intercept.v1': { addresses: ['svc20.ziti'] } });
    expect(JSON.parse(page.services!.find((s) => s.id === 's20')!.configJson!)).toEqual({ 'intercept.v1': { addresses: ['svc20.ziti'] } });
    expect(page.digest!.digest).toBe((await digestAlone()).digest);
    expect((await withDigest(['all'])).services!.find((s) => s.id === 's10')!.configJson).toBe(page.services!.find((s) => s.id === 's10')!.configJson);
  });

  it('keeps the digest it read with the page for the marker\'s confirmations', async () => {
    own.length = 0;
    const cached = { ...deps, serviceLists: createEvaluationCache<pb.ListServicesResponse>({ ttlMs: 60_000 }), serviceDigests: createEvaluationCache<pb.ServiceListDigest>({ ttlMs: 60_000 }) };
    const kept = createEvaluationHandlers(cached);
    const page = await kept.ListServicesForIdentity({ ...caller, configTypes: [], query, policyType: '', withDigest: true } as pb.ListServicesForIdentityRequest__Output);
    let digest!: pb.ServiceListDigest;
    const statements = await statementsOf(async () => { digest = await kept.GetServiceListDigest(caller as pb.GetServiceListDigestRequest__Output); });
    expect(statements).toEqual([]);
    expect(digest.digest).toBe(page.digest!.digest);
  });

  it('reads the digest apart when the page does not hold every service, the digest first', async () => {
    own.length = 0;
    let page!: pb.ListServicesResponse;
    const statements = await statementsOf(async () => { page = await withDigest([], { limit: 50 }); });
    expect(page.services).toHaveLength(50);
    expect(page.meta!.totalCount).toBe(200);
    expect(page.digest!.digest).toBe((await digestAlone()).digest);
    // The page tried whole, then the digest's (grants, policies, types, configs), then the page's own (grants, policies).
    expect(statements).toHaveLength(7);
  });
});

/** The evaluation handlers with the store's grant evaluation counted, and (`partsChanging`) no answer from kept parts. */
function counting(partsChanging: boolean) {
  const seen = { running: 0, most: 0, calls: 0 };
  const grantsAmong = deps.stores.evaluation.grantsAmong;
  const handlers = createEvaluationHandlers({
    ...deps,
    ...(partsChanging ? { accessReader: { ...deps.accessReader, read: async () => null } } : {}),
    stores: {
      ...deps.stores,
      evaluation: {
        ...deps.stores.evaluation,
        async grantsAmong(...args: Parameters<typeof grantsAmong>) {
          seen.calls++;
          seen.most = Math.max(seen.most, ++seen.running);
          try {
            return await grantsAmong(...args);
          } finally {
            seen.running--;
          }
        },
      },
    },
  });
  return { handlers, seen };
}
// Identity k holds team-k, which policy k grants #g<k % 100>: service s<100 + k % 100> is granted, s<101 + k % 100> is not.
const queries = Array.from({ length: 40 }, (_, i) => ({ identityId: `i${i + 1}`, roleAttributes: [`team-${i + 1}`], serviceIds: [`s${100 + ((i + 1) % 100)}`, `s${101 + ((i + 1) % 100)}`] }));
const grantsOf = async (via: ReturnType<typeof createEvaluationHandlers>, asked = queries) =>
  (await via.GetServiceGrants({ queries: asked } as pb.GetServiceGrantsRequest__Output)).grants!
    .map((g) => [g.identityId, g.serviceId, g.permissions, g.postureQueries!.map((q) => [q.policyId, q.checks!.map((c) => c.id)])])
    .sort((x, y) => String(x[0]).localeCompare(String(y[0])));

describe('many identities\' grants (re-evaluations and reconciliations)', () => {
  it('reads two identities at a time, across calls, leaving the rest of the pool to the hot path, when the kept parts cannot answer', async () => {
    const { handlers: counted, seen } = counting(true);
    // Two calls at once (a reconciliation beside a re-evaluation) share the two reads.
    const [a, b] = await Promise.all([queries.slice(0, 25), queries.slice(25)].map((part) => counted.GetServiceGrants({ queries: part } as pb.GetServiceGrantsRequest__Output)));
    expect(seen.most).toBe(2);
    expect([...a!.grants!, ...b!.grants!].map((g) => [g.identityId, g.serviceId, g.permissions])).toEqual(queries.map((q) => [q.identityId, q.serviceIds[0], ['Dial']]));
  });
});

describe('what an identity may do with a service', () => {
  const sessionAccess = { identityId: 'i1', roleAttributes: ['team-10'], serviceId: 's10', grantedOnly: true, edgeRouters: true, edgeRouterCounts: false, edgeRouterQuery: null };
  const expectGrant = (access: pb.ServiceAccess) => {
    expect(access.permissions).toEqual(['Dial']);
    expect(access.policies!.map((p) => [p.policyName, p.checks!.map((c) => [c.id, c.domains])])).toEqual([['sp-10', [['pc10', ['corp.example']]]]]);
  };
  // erp10 selects team-10 and #er-0; the 30 service edge router policies of #g10 select s10 and #er-0 too.
  const COMMON = Array.from({ length: 30 }, (_, i) => `er${(i + 1) * 100}`);

  /** The answer to `req` (through `via`) and the statements it ran. */
  async function answer(req: Partial<pb.GetServiceAccessRequest__Output>, via: ReturnType<typeof createAccessHandlers> = handlers) {
    routerCalls.length = 0;
    let access: pb.ServiceAccess | undefined;
    const statements = await statementsOf(async () => {
      access = await via.GetServiceAccess({ ...sessionAccess, ...req } as pb.GetServiceAccessRequest__Output);
    });
    return { access: access!, statements };
  }

  // Before, six statements in three rounds: service and grant; granting policies with checks and
  // both router policy sides; the routers. Then one statement for the whole access.
  it('answers a session creation (grant, posture checks, edge routers) from parts read by index, then kept', async () => {
    const via = createAccessHandlers({ ...deps, accessReader: createAccessReader(deps.stores.accessParts) });
    const cold = await answer({}, via);
    expectGrant(cold.access);
    expect(cold.access.edgeRouters!.map((r) => r.id)).toEqual(COMMON);
    expect(cold.access.edgeRouters![0]).toMatchObject({ name: 'router-100', hostname: 'er100.example' });
    expect(routerCalls).toEqual([]);
    // The version; the identity's part; the service's part; the routers both select.
    expect(cold.statements).toHaveLength(4);
    expect(await scansOf(cold.statements)).toEqual([]);
    // Asked again: the version only, and the same answer.
    const warm = await answer({}, via);
    expect(warm.access).toEqual(cold.access);
    expect(warm.statements).toHaveLength(1);
  });

  it('answers every service of an identity (an SDK dialing many) in a few indexed statements, a renewal in one', async () => {
    const via = createAccessHandlers({ ...deps, accessReader: createAccessReader(deps.stores.accessParts) });
    const ask = () => via.GetIdentityAccesses({ identityId: 'i1', roleAttributes: ['team-10'], maxServices: 500, knownVersion: '' });
    let res: pb.GetIdentityAccessesResponse | undefined;
    const cold = await statementsOf(async () => { res = await ask(); });
    // sp-10 grants #g10: s10, s110, … s9910.
    expect(res!.complete).toBe(true);
    expect(res!.accesses!).toHaveLength(100);
    expect(res!.accesses!.every((a) => a.permissions!.join() === 'Dial' && a.routerSet === 0)).toBe(true);
    expect(res!.routerSets![0]!.routers).toHaveLength(30);
    expect(res!.policies!.map((p) => p.policyName)).toEqual(['sp-10']);
    // The version the answer is read at; the granted ids; the version the parts are read at; the
    // identity's part; the services' parts, 64 a statement; the routers both select.
    expect(cold).toHaveLength(7);
    expect(await scansOf(cold)).toEqual([]);
    // Again: the versions and the granted ids.
    const warm = await statementsOf(async () => { expect(await ask()).toEqual(res); });
    expect(warm).toHaveLength(3);
    expect(await scansOf(warm)).toEqual([]);
    // Again, holding that answer (a renewal): the version only.
    const renewal = await statementsOf(async () => {
      expect(await via.GetIdentityAccesses({ identityId: 'i1', roleAttributes: ['team-10'], maxServices: 500, knownVersion: res!.version! }))
        .toEqual({ complete: true, unchanged: true, version: res!.version });
    });
    expect(renewal).toHaveLength(1);
  });

  it('counts the edge routers of each side from the same parts (policy advice)', async () => {
    const via = createAccessHandlers({ ...deps, accessReader: createAccessReader(deps.stores.accessParts) });
    const { access, statements } = await answer({ grantedOnly: false, edgeRouterCounts: true }, via);
    expect([access.edgeRouters!.length, access.identityEdgeRouterCount, access.serviceEdgeRouterCount]).toEqual([30, 30, 30]);
    expect(statements).toHaveLength(4);
    expect(await scansOf(statements)).toEqual([]);
    expect((await answer({ grantedOnly: false, edgeRouterCounts: true, edgeRouters: false }, via)).access)
      .toMatchObject({ edgeRouters: [], identityEdgeRouterCount: 30, serviceEdgeRouterCount: 30 });
  });

  it('reads no edge router when none is asked for', async () => {
    const { access, statements } = await answer({ edgeRouters: false }, createAccessHandlers({ ...deps, accessReader: createAccessReader(deps.stores.accessParts) }));
    expect(access.edgeRouters).toEqual([]);
    expect(statements).toHaveLength(3);
    expect(await scansOf(statements)).toEqual([]);
  });

  it('answers a caller no policy grants with not found, reading only its own part once the service\'s is kept', async () => {
    const via = createAccessHandlers({ ...deps, accessReader: createAccessReader(deps.stores.accessParts) });
    await answer({}, via);
    const statements = await statementsOf(async () => {
      await expect(answer({ roleAttributes: ['team-11'] }, via)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });
    expect(statements).toHaveLength(2);
  });

  it('sees a change made behind its back at the next read, the kept parts read again', async () => {
    const via = createAccessHandlers({ ...deps, accessReader: createAccessReader(deps.stores.accessParts) });
    await answer({}, via);
    const policies = sql.id(h.schema, 'service_policies');
    await sql`update ${policies} set identity_roles = array['#team-x'], identity_attrs = array['team-x'] where id = 'sp10'`.execute(h.db);
    try {
      const statements = await statementsOf(async () => {
        await expect(answer({}, via)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      });
      // The version moved: both parts are read again.
      expect(statements).toHaveLength(3);
    } finally {
      await sql`update ${policies} set identity_roles = array['#team-10'], identity_attrs = array['team-10'] where id = 'sp10'`.execute(h.db);
    }
    expectGrant((await answer({}, via)).access);
  });

  it('reads both router policy sides with the grant and asks for the edge routers once, the model not filled yet', async () => {
    const { access, statements } = await answer({}, unfilled);
    expectGrant(access);
    expect(routerCalls).toEqual([{ selectedBy: 1, alsoSelectedBy: 30 }]);
    expect(statements).toHaveLength(1);
    expect(await scansOf(statements)).toEqual([]);
  });
});

// Last: it changes a policy, which moves the access version the statement counts above rely on.
describe('many identities\' grants from the kept parts', () => {
  it('answers from the parts kept under the access version as the statement does, and sees a revocation at once', async () => {
    const fromStatements = await grantsOf(counting(true).handlers);
    const { handlers, seen } = counting(false);
    const fromParts = await grantsOf(handlers);
    expect(seen.calls).toBe(0);
    expect(fromParts).toEqual(fromStatements);
    // Identity 10's policy names posture check pc10.
    expect(fromParts.find((g) => g[0] === 'i10')).toEqual(['i10', 's110', ['Dial'], [['sp10', ['pc10']]]]);
    // Policy 7 stops selecting identity 7: the next call no longer grants it, with nothing waited for.
    const t = (name: string) => sql.id(h.schema, name);
    await sql`update ${t('service_policies')} set identity_roles = '{#nobody}', identity_attrs = '{nobody}' where id = 'sp7'`.execute(h.db);
    const granted = (id: string) => fromParts.find((g) => g[0] === id);
    try {
      expect(await grantsOf(handlers, queries.slice(6, 8))).toEqual([granted('i8')]);
    } finally {
      await sql`update ${t('service_policies')} set identity_roles = '{#team-7}', identity_attrs = '{team-7}' where id = 'sp7'`.execute(h.db);
    }
    expect(await grantsOf(handlers, queries.slice(6, 7))).toEqual([granted('i7')]);
  });
});

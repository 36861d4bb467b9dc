/**
 * The policy service over gRPC against real Postgres and NATS: evaluation at the sizes it is
 * designed for, and the events every change publishes after it commits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery, Kysely, sql } from 'kysely';
import { openConnection } from '@edge/db';
import { planList } from '@edge/zitiql';
import { createEvaluationStore } from '../src/store/evaluation.js';
import { SERVICE_FIELDS } from '../src/store/service.js';
import type { BusMessage } from '@edge/bus';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h?.close());

const query = (extra: Record<string, unknown> = {}) => ({ limit: 500, offset: 0, filter: '', sort: '', roleFilter: [], roleSemantic: '', ...extra });
const noTags = '{}';

describe('evaluation at scale', () => {
  const SERVICES = 10_000;
  const POLICIES = 100;

  beforeAll(async () => {
    // 10,000 services in 100 groups (#g0..#g99), each also #even or #odd; bulk-loaded in SQL.
    await sql`insert into ${sql.id(h.schema, 'services')} (id, name, role_attributes)
      select 's' || n, 'svc-' || n, array['g' || (n % 100), case when n % 2 = 0 then 'even' else 'odd' end]
      from generate_series(1, ${SERVICES}) n`.execute(h.db);
    // 100 Dial policies: policy k lets #team-k dial #g<k>; one Bind policy lets #ops bind every #even service.
    for (let k = 0; k < POLICIES; k++) {
      await h.client.createServicePolicy({ fields: { name: `dial-${k}`, type: 'Dial', semantic: 'AllOf', identityRoles: [`#team-${k}`], serviceRoles: [`#g${k}`], postureCheckRoles: [], tagsJson: noTags } });
    }
    await sql`analyze ${sql.id(h.schema, 'services')}`.execute(h.db);
    await h.client.createServicePolicy({ fields: { name: 'bind-even', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#ops'], serviceRoles: ['#even'], postureCheckRoles: [], tagsJson: noTags } });
  }, 120_000);

  it('answers a page with the total for an identity in several teams', async () => {
    const r = await h.client.listServicesForIdentity({ identityId: 'i1', roleAttributes: ['team-1', 'team-2', 'ops'], configTypes: [], query: query({ limit: 10 }) });
    // team-1 → #g1 (100 odd), team-2 → #g2 (100 even), ops → 5,000 even: 100 + 5,000 distinct.
    expect(Number(r.meta!.totalCount)).toBe(5_100);
    // Speed is `npm run bench`'s business; the plan test below checks the indexes are used.
    expect(r.services).toHaveLength(10);
  });

  it('merges Dial and Bind of one service and filters inside the granted set', async () => {
    const r = await h.client.listServicesForIdentity({
      identityId: 'i1', roleAttributes: ['team-2', 'ops'], configTypes: [], query: query({ filter: 'name = "svc-2"' }),
    });
    expect(r.services.map((s) => [s.name, s.permissions])).toEqual([['svc-2', ['Bind', 'Dial']]]);
  });

  it('grants nothing to an identity no policy selects, and 404s a service it may not see', async () => {
    const r = await h.client.listServicesForIdentity({ identityId: 'nobody', roleAttributes: ['team-x'], configTypes: [], query: query() });
    expect(Number(r.meta!.totalCount)).toBe(0);
    await expect(h.client.getServiceForIdentity({ identityId: 'nobody', roleAttributes: [], configTypes: [], serviceId: 's2' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('joins policies to services through the role indexes, not a scan per policy', async () => {
    const plan = await sql<{ 'QUERY PLAN': string }>`explain
      select s.id from ${sql.id(h.schema, 'service_policies')} p join ${sql.id(h.schema, 'services')} s on s.role_attributes @> p.service_attrs
      where p.semantic = 'AllOf' and cardinality(p.service_attrs) > 0 and p.identity_attrs <@ array['team-1']::text[]`.execute(h.db);
    const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toMatch(/services_role_attributes/);
  });

  it('reads the services of a page by primary key, not by scanning all 10,000', async () => {
    // The statement the store really runs, captured and explained with its parameters.
    const conn = await openConnection({ url: process.env.EDGE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
    const ran: CompiledQuery[] = [];
    const db = new Kysely<any>({ dialect: conn.dialect(), log: (e) => { ran.push(e.query); } }).withSchema(h.schema);
    try {
      const page = await createEvaluationStore(db).list({ identityId: 'i1', roleAttributes: ['team-1'] }, planList(SERVICE_FIELDS, { limit: 500 }));
      expect(page.total).toBe(100);
      expect(page.items[0]!.service.name).toMatch(/^svc-/);
      expect(ran).toHaveLength(1);
      const explained = await db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain (analyze, costs off) ${ran[0]!.sql}`, [...ran[0]!.parameters]));
      const scans = explained.rows.map((r) => r['QUERY PLAN']).filter((l) => /Seq Scan on services\b/.test(l) && !/never executed/.test(l));
      expect(scans).toEqual([]);
    } finally {
      await db.destroy();
      await conn.close();
    }
  });
});

describe('events', () => {
  it('publishes service, config and policy changes after they commit', async () => {
    const got: BusMessage<{ id: string; name: string; serviceIds?: string[] }>[] = [];
    const sub = await h.bus.subscribe<{ id: string; name: string; serviceIds?: string[] }>('edge.policy.>', async (m) => { got.push(m); });
    const type = await h.client.createConfigType({ fields: { name: 'ev-type', schemaJson: '{}', tagsJson: noTags, target: '' } });
    const config = await h.client.createConfig({ fields: { name: 'ev-config', configTypeId: type.id, dataJson: '{}', tagsJson: noTags } });
    const svc = await h.client.createService({ fields: { name: 'ev-svc', encryptionRequired: true, maxIdleTimeMillis: 0, terminatorStrategy: '', roleAttributes: [], configs: [config.id], tagsJson: noTags } });
    await h.client.deleteConfig({ id: config.id });
    await h.client.deleteService({ id: svc.id });
    const deadline = Date.now() + 5_000;
    while (got.length < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await sub.unsubscribe();
    expect(got.map((m) => m.subject)).toEqual([
      'edge.policy.config-type.created', 'edge.policy.config.created', 'edge.policy.service.created',
      'edge.policy.config.deleted', 'edge.policy.service.deleted',
    ]);
    expect(got[3]!.data).toEqual({ id: config.id, name: 'ev-config', serviceIds: [svc.id] });
    expect(got[4]!.data).toMatchObject({ id: svc.id, name: 'ev-svc' });
  });

  it('publishes nothing when a write is refused', async () => {
    const got: string[] = [];
    const sub = await h.bus.subscribe('edge.policy.>', async (m) => { got.push(m.subject); });
    await expect(h.client.createServicePolicy({ fields: { name: 'bad', type: 'Dial', semantic: 'AllOf', identityRoles: ['eu'], serviceRoles: [], postureCheckRoles: [], tagsJson: noTags } }))
      .rejects.toMatchObject({ code: 'COULD_NOT_VALIDATE' });
    await new Promise((r) => setTimeout(r, 300));
    await sub.unsubscribe();
    expect(got).toEqual([]);
  });

  it('resolves @name of an identity through the identity service', async () => {
    h.identities.set('ident-1', { id: 'ident-1', name: 'alice' });
    const { id } = await h.client.createServicePolicy({ fields: { name: 'by-name', type: 'Dial', semantic: 'AllOf', identityRoles: ['@alice'], serviceRoles: [], postureCheckRoles: [], tagsJson: noTags } });
    const p = await h.client.getServicePolicy({ id });
    expect(p.identityRoles).toEqual(['@ident-1']);
    expect(p.identityRolesDisplay).toEqual([{ role: '@ident-1', name: '@alice' }]);
    // An `@id` naming nothing any more is left out of the display, as OpenZiti's GetNamedIdentityRoles.
    h.identities.delete('ident-1');
    expect((await h.client.getServicePolicy({ id })).identityRolesDisplay).toEqual([]);
  });
});

/**
 * The edge router read model's deletion sweep covers exactly the ids of the page it was given,
 * in code point order as the identity service pages them, also on a database whose collation
 * orders text by locale (where `a0001` comes before `B0001`).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { identity } from '@edge/proto';
import { createEdgeRouterModel, type EdgeRouterModel } from '../src/store/edge-router-model.js';
import { createHarness, type Harness } from './harness.js';

function router(id: string): identity.Router {
  const at = new Date(Date.UTC(2026, 0, 1)).toISOString();
  return {
    id, kind: 'edge', name: `router-${id}`, roleAttributes: [], tagsJson: '{}', appDataJson: '{}', cost: 0, noTraversal: false, disabled: false,
    isTunnelerEnabled: false, isVerified: false, hostname: '', supportedProtocols: {}, ctrlChanListeners: {}, configs: [], createdAt: at, updatedAt: at,
  };
}

describe('the edge router model on a database that orders text by locale', () => {
  let h: Harness;
  let model: EdgeRouterModel;
  let table = '';

  beforeAll(async () => {
    h = await createHarness({ edgeRouters: ['B0001', 'a0001', 'a0003', 'B0003'].map(router) });
    model = createEdgeRouterModel(h.db);
    await vi.waitFor(async () => expect(await model.isFilled()).toBe(true), { timeout: 20_000, interval: 100 });
    table = (await h.db.selectFrom('edge_routers').select(sql<string>`tableoid::regclass::text`.as('t')).limit(1).executeTakeFirstOrThrow()).t;
  }, 60_000);
  afterAll(() => h?.close());

  it('marks deleted only ids of the page range by code point', async () => {
    const icu = await sql<{ n: number }>`select count(*)::int as n from pg_collation where collname = 'en-US-x-icu'`.execute(h.db);
    if (icu.rows[0]!.n === 0) return; // a Postgres built without ICU: nothing to compare with
    await sql.raw(`alter table ${table} alter column id type text collate "en-US-x-icu"`).execute(h.db);
    await h.db.updateTable('edge_routers').set({ seen_at: new Date(Date.now() - 60_000) }).execute();
    // By code point the page after 'a0001' holds only 'a0003'; the B routers came in an earlier page.
    const swept = await model.markDeletedExcept({ afterId: 'a0001' }, ['a0003'], new Date());
    const deleted = await h.db.selectFrom('edge_routers').select('id').where('deleted', '=', true).execute();
    expect({ swept, deleted }).toEqual({ swept: 0, deleted: [] });
  });
});

/**
 * The periodic reconciliation reads every session in (identity, id) order: each page of 500 holds
 * the sessions of a few identities, so their grants are read once a pass. In id order every page
 * held sessions of nearly every identity, and each page read all their grants again (the policy
 * service's load after a burst of session creations).
 */
import { randomBytes } from 'node:crypto';
import { silentLogger } from '@edge/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../src/domain/session.js';
import { createSessionReconcile } from '../src/events.js';
import { createSessionRecords } from '../src/store/session.js';
import { createHarness, type Harness } from './harness.js';

const IDENTITIES = 12;
const PER_IDENTITY = 100;

describe('a reconciliation pass over every session', () => {
  let h: Harness;
  const pages: Session[][] = [];
  let step: (cursor: string | undefined) => Promise<string | undefined>;

  beforeAll(async () => {
    h = await createHarness();
    // Random ids: in id order the identities' sessions interleave.
    const rows = Array.from({ length: IDENTITIES * PER_IDENTITY }, (_, i) => ({
      id: `s-${randomBytes(6).toString('hex')}`, token: randomBytes(16).toString('hex'), api_session_id: `a-${i}`,
      identity_id: `ident-${String(i % IDENTITIES).padStart(2, '0')}`, service_id: `svc-${i % 7}`, service_name: 'svc', type: 'Dial',
      service_policy_ids: [], tags: '{}',
    }));
    await h.db.insertInto('sessions').values(rows).execute();
    step = createSessionReconcile(createSessionRecords(h.db), { staleAmong: async (page) => { pages.push([...page]); return []; } }, silentLogger());
  }, 60_000);
  afterAll(async () => h?.close());

  it('pages in (identity, id) order, each page holding few identities, every session once', async () => {
    pages.length = 0;
    let cursor: string | undefined;
    do cursor = await step(cursor);
    while (cursor !== undefined);
    expect(pages.map((p) => p.length)).toEqual([500, 500, 200]);
    const seen = pages.flat().map((s) => s.id);
    expect(new Set(seen).size).toBe(IDENTITIES * PER_IDENTITY);
    // 500 sessions of identities with 100 each: five, or six where a page starts mid-identity.
    for (const page of pages) expect(new Set(page.map((s) => s.identityId)).size).toBeLessThanOrEqual(6);
  });

  it('starts the pass over from a cursor of the id-ordered pass before it (an upgrade)', async () => {
    pages.length = 0;
    const next = await step('s-8000');
    expect(pages[0]!.map((s) => s.identityId).slice(0, 1)).toEqual(['ident-00']);
    expect(next).toBeDefined();
    expect(JSON.parse(next!)).toEqual([pages[0]!.at(-1)!.identityId, pages[0]!.at(-1)!.id]);
  });
});

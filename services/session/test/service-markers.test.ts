/**
 * The service-update marker SDKs poll: the time an identity's service list last changed, kept
 * per identity as the digest of the list last seen.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceMarkers } from '../src/store/service-marker.js';
import { createHarness, type Harness } from './harness.js';

describe('service-update markers', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h?.close());

  /** The row's version: a write of the row, even of the same values, makes a new one. */
  const version = async (identityId: string) =>
    (await h.db.selectFrom('service_markers').select(sql<string>`xmin::text`.as('xmin')).where('identity_id', '=', identityId).executeTakeFirst())?.xmin;

  it('keeps the time of the last change while the digest stays, without writing the row again', async () => {
    const markers = createServiceMarkers(h.db);
    const first = await markers.observe('poller', 'digest-a');
    const written = await version('poller');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await markers.observe('poller', 'digest-a')).toEqual(first);
    expect(await version('poller')).toBe(written);

    const changed = await markers.observe('poller', 'digest-b');
    expect(changed.getTime()).toBeGreaterThan(first.getTime());
    expect(await version('poller')).not.toBe(written);
    expect(await markers.observe('poller', 'digest-b')).toEqual(changed);
  });
});

/**
 * Run once before a test run (vitest `globalSetup`): drops what crashed runs left in the shared
 * Postgres and NATS and in the temporary directory, hours old, so leftovers do not pile up.
 * Prefixes of runs going on now are younger and stay. A Postgres or NATS that does not answer
 * only skips its part: the tests that need it will say so.
 */
import { sweepStaleTestPrefixes } from '@edge/testing';
import { TEST_DATABASE_URL, TEST_NATS_URL } from './infra.js';

export default async function sweep(): Promise<void> {
  const parts = [
    sweepStaleTestPrefixes({ databaseUrl: TEST_DATABASE_URL, tmpDir: null }),
    sweepStaleTestPrefixes({ natsUrl: TEST_NATS_URL, tmpDir: null }),
    sweepStaleTestPrefixes({}),
  ];
  const results = await Promise.allSettled(parts);
  const removed = results.flatMap((r) => (r.status === 'fulfilled' ? [...r.value.schemas, ...r.value.streams, ...r.value.dirs] : []));
  if (removed.length) console.log(`removed ${removed.length} leftovers of earlier test runs`);
  for (const r of results) if (r.status === 'rejected') console.warn(`could not sweep leftovers of earlier test runs: ${String(r.reason)}`);
}

/**
 * Faults injected into the local cluster (a supervised process per service) under a mixed load
 * of logins, identity creates, session creates, service lists and logouts, as `npm run chaos`
 * does: NATS (a server of this file's own) killed while writes go on and started again, and a
 * service killed with SIGKILL. Every acknowledged write is re-read, every effect of an
 * acknowledged logout or deletion is waited for, and no answer may be a 500.
 */
import { runChaos, type ChaosResult, type FaultResult } from '@edge/bench/chaos';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupPrefix } from './support/cleanup.js';
import { TEST_DATABASE_URL, uniquePrefix } from './support/infra.js';

const prefix = uniquePrefix();
let result: ChaosResult;
const fault = (name: string): FaultResult => result.faults.find((f) => f.fault === name)!;

beforeAll(async () => {
  result = await runChaos({ databaseUrl: TEST_DATABASE_URL, prefix, faults: ['nats', 'identity'], seconds: 3, boundMs: 5_000, eventBoundMs: 8_000 });
}, 150_000);
afterAll(async () => {
  await cleanupPrefix(prefix);
});

/** Every answer was a success or 503 UNAVAILABLE: none was a 500, none went unanswered. */
function expectHonestAnswers(r: FaultResult) {
  const statuses = Object.keys(r.outcomes);
  expect(statuses.filter((s) => !/^2\d\d$/.test(s) && s !== '503'), JSON.stringify(r.byKind)).toEqual([]);
}

describe('NATS killed while writes go on', () => {
  // regression: with NATS down writes committed and answered 500, and their events were lost
  // for good: the sessions of a logged-out API session and of a deleted identity stayed
  it('acknowledges the writes, keeps every one, and delivers every event within seconds of NATS returning', () => {
    const r = fault('nats');
    const detail = JSON.stringify({ window: r.window, during: r.during, eventsLost: r.eventsLost });
    expect(r.during['create-identity']?.['201'], detail).toBeGreaterThan(0);
    expect(r.during['create-session']?.['201']).toBeGreaterThan(0);
    // The logout of an API session holding a session, and the deletion of an identity with an
    // authenticator and a session, both while NATS was away.
    expect(r.during.logout?.['200']).toBeGreaterThan(0);
    expect(r.during['delete-identity']).toEqual({ 200: 1 });
    expectHonestAnswers(r);
    expect(r.writesChecked).toBeGreaterThan(10);
    expect(r.writesLost).toEqual([]);
    expect(r.eventsChecked).toBeGreaterThanOrEqual(2);
    expect(r.eventsLost).toEqual([]);
    expect(r.eventsDeliveredMs, detail).toBeDefined();
    expect(r.eventsDeliveredMs!, detail).toBeLessThan(8_000);
    expect(r.problems).toEqual([]);
  });
});

describe('a service killed with SIGKILL under load', () => {
  it('is restarted by the supervisor and used by the gateway again within 5 s, answering 503 meanwhile, never 500', () => {
    const r = fault('identity');
    const detail = JSON.stringify({ window: r.window, recoveryMs: r.recoveryMs, byKind: r.byKind });
    // Started again at once; serving once Node has loaded it, which a loaded machine draws out.
    expect(r.window.restartMs, detail).toBeLessThan(5_000);
    expect(r.window.servingMs, detail).toBeDefined();
    // Identity creates need the identity service: one succeeded within 5 s of it serving again.
    expect(r.recoveryMs['create-identity'], detail).toBeDefined();
    expect(r.recoveryMs['create-identity']! - r.window.servingMs!, detail).toBeLessThan(5_000);
    expect(r.byKind['create-identity']?.['201']).toBeGreaterThan(0);
    expectHonestAnswers(r);
    expect(r.writesLost).toEqual([]);
    expect(r.eventsLost).toEqual([]);
    expect(r.problems).toEqual([]);
  });
});

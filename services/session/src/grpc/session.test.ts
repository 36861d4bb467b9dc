/**
 * The CreateSessions handler's own rules, over sessions standing in for the domain: a batch is
 * bounded, and a failure its items share is logged once, while every item still answers it.
 */
import { Writable } from 'node:stream';
import { unavailable } from '@edge/errors';
import { createLogger } from '@edge/logging';
import type { session as pb } from '@edge/proto';
import { decodeZitiError } from '@edge/rpc';
import { describe, expect, it } from 'vitest';
import type { Sessions } from '../sessions.js';
import type { SessionRecords } from '../store/session.js';
import { createSessionRpcHandlers } from './session.js';

/** Handlers whose every creation fails with what `fail` gives, and the log lines they write. */
function handlersFailingWith(fail: () => unknown) {
  const lines: Array<{ msg: string }> = [];
  const log = createLogger({ level: 'info', destination: new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } }) });
  let creations = 0;
  const sessions = { create: async () => { creations++; throw fail(); } } as unknown as Sessions;
  return { handlers: createSessionRpcHandlers(sessions, {} as SessionRecords, log), lines, creations: () => creations };
}

const items = (n: number): pb.CreateSessionsRequest__Output => ({
  items: Array.from({ length: n }, (_, i) => ({
    request: { apiSessionId: `a${i}`, identityId: `i${i}`, serviceId: 's', type: 'Dial', tagsJson: '{}' }, principal: Buffer.alloc(0), requestId: `r${i}`,
  })),
});

describe('CreateSessions', () => {
  it('logs a failure its items share once, and answers it to each item', async () => {
    const shared = unavailable('the policy service', new Error('connect ECONNREFUSED'));
    const { handlers, lines } = handlersFailingWith(() => shared);
    const results = (await handlers.CreateSessions(items(5), { requestId: 'batch' })).results!;
    expect(results.map((r) => decodeZitiError(Buffer.from(r.error!))?.code)).toEqual(Array(5).fill('UNAVAILABLE'));
    expect(lines.filter((l) => l.msg === 'answered UNAVAILABLE')).toHaveLength(1);
  });

  it('logs each item\'s own failure', async () => {
    const { handlers, lines } = handlersFailingWith(() => new Error('a bug'));
    const results = (await handlers.CreateSessions(items(3), { requestId: 'batch' })).results!;
    expect(results.map((r) => r.error!.length)).toEqual([0, 0, 0]);
    expect(lines.filter((l) => l.msg === 'unhandled error in gRPC handler')).toHaveLength(3);
  });

  it('refuses more than 1000 items whole, before creating any', async () => {
    const { handlers, creations } = handlersFailingWith(() => new Error('not reached'));
    await expect(handlers.CreateSessions(items(1001), { requestId: 'batch' })).rejects.toMatchObject({ code: 'COULD_NOT_VALIDATE', fieldCause: { field: 'items', value: 1001 } });
    expect(creations()).toBe(0);
  });
});

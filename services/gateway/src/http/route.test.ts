import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { currentContext } from '@edge/rpc';
import { createRouter } from './route.js';
import type { SessionCache } from './session-cache.js';

describe('the deadline of a request', () => {
  it('is set at the edge for every call the request makes, and lifted for work it leaves running', async () => {
    const app = Fastify();
    const route = createRouter(app, {} as SessionCache, [], { deadlineMs: 300 });
    let later: number | undefined | 'unset' = 'unset';
    let done!: () => void;
    const settled = new Promise<void>((r) => { done = r; });
    route('GET', '/probe', 'public', async (req) => {
      setTimeout(() => { later = currentContext().deadline; done(); }, 50);
      return { body: { deadline: currentContext().deadline, requestId: currentContext().requestId, id: req.id, now: Date.now() } };
    });
    const r = await app.inject({ method: 'GET', url: '/probe' });
    const body = r.json() as { deadline: number; now: number; requestId: string; id: string };
    expect(body.deadline - body.now).toBeGreaterThan(200);
    expect(body.deadline - body.now).toBeLessThanOrEqual(300);
    expect(body.requestId).toBe(body.id);
    await settled;
    expect(later).toBeUndefined();
    await app.close();
  });
});

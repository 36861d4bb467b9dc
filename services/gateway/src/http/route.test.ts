import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { context, propagation, trace } from '@opentelemetry/api';
import { currentContext } from '@edge/rpc';
import { startTelemetry } from '@edge/telemetry';
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

describe('the trace of a request when no span is recorded', () => {
  // As a gateway process runs without an exporter: W3C propagation and an active context, no tracer.
  startTelemetry({ serviceName: 'route-test' });

  /** A route answering the trace it runs in and the traceparent its calls would send. */
  async function probe(headers: Record<string, string>) {
    const app = Fastify();
    createRouter(app, {} as SessionCache)('GET', '/probe', 'public', async () => {
      await new Promise((r) => setTimeout(r, 1));
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      return { body: { active: trace.getActiveSpan()?.spanContext().traceId ?? null, sent: carrier.traceparent ?? null } };
    });
    const r = await app.inject({ method: 'GET', url: '/probe', headers });
    await app.close();
    return { header: r.headers['x-trace-id'], ...(r.json() as { active: string | null; sent: string | null }) };
  }

  it("names the caller's trace and continues it in every call the request makes", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const got = await probe({ traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
    expect(got.header).toBe(traceId);
    expect(got.active).toBe(traceId);
    expect(got.sent).toContain(traceId);
  });

  it('names no trace and sends none when the caller sent none', async () => {
    const got = await probe({});
    expect(got.header).toBeUndefined();
    expect(got.sent).toBeNull();
    expect(got.active === null || /^0+$/.test(got.active)).toBe(true);
  });

  it('names no trace for a traceparent whose trace id is all zeros', async () => {
    const got = await probe({ traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` });
    expect(got.header).toBeUndefined();
    expect(got.sent).toBeNull();
  });
});

describe('a JSON answer', () => {
  it('is sent as UTF-8 JSON whose content-length counts bytes, not characters', async () => {
    const app = Fastify();
    createRouter(app, {} as SessionCache)('GET', '/probe', 'public', async () => ({ body: { data: { name: 'zürich-東京' } } }));
    const r = await app.inject({ method: 'GET', url: '/probe' });
    await app.close();
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify({ data: { name: 'zürich-東京' } })));
    expect(r.json()).toEqual({ data: { name: 'zürich-東京' } });
  });
});

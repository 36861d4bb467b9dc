import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTelemetry } from '@edge/telemetry';
import { startTestController, type TestController } from './support/controller.js';

const exporter = new InMemorySpanExporter();
const telemetry = startTelemetry({ serviceName: 'e2e', spanProcessors: [new SimpleSpanProcessor(exporter)] });
let c: TestController;
beforeAll(async () => {
  c = await startTestController();
});
afterAll(async () => {
  await c?.stop();
  await telemetry.shutdown();
});

describe('tracing', () => {
  it('continues the caller trace: gateway span → gRPC client → service span', async () => {
    const token = await c.login();
    const traceId = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    exporter.reset();
    const answer = await c.http.get('/edge/management/v1/identities', { session: token, headers: { traceparent: `00-${traceId}-1122334455667788-01` }, expectStatus: 200 });
    expect(answer.headers['x-trace-id']).toBe(traceId);
    await new Promise((r) => setTimeout(r, 100));
    const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const parentOf = (s: (typeof spans)[number]) => (s as unknown as { parentSpanContext?: { spanId: string }; parentSpanId?: string }).parentSpanContext?.spanId ?? (s as unknown as { parentSpanId?: string }).parentSpanId;
    const http = spans.find((s) => s.name === 'GET /edge/management/v1/identities');
    expect(http).toBeDefined();
    expect(parentOf(http!)).toBe('1122334455667788');
    const client = spans.find((s) => s.name === 'ListIdentities');
    expect(parentOf(client!)).toBe(http!.spanContext().spanId);
    const server = spans.find((s) => s.name === 'identity/ListIdentities');
    expect(parentOf(server!)).toBe(client!.spanContext().spanId);
  });

  it('follows one request through three services, their SQL and the events they publish and consume', async () => {
    const token = await c.login();
    const policy = await c.http.post('/edge/management/v1/auth-policies', {
      session: token, expectStatus: 201, body: {
        name: 'traced policy',
        primary: {
          cert: { allowed: true, allowExpiredCerts: false }, extJwt: { allowed: false, allowedSigners: [] },
          updb: { allowed: true, minPasswordLength: 5, requireMixedCase: false, requireNumberChar: false, requireSpecialChar: false, maxAttempts: 0, lockoutDurationMinutes: 0 },
        },
        secondary: { requireTotp: false, requireExtJwtSigner: null },
      },
    });
    const traceId = 'b1b2c3d4e5f60718293a4b5c6d7e8f91';
    exporter.reset();
    const created = await c.http.post('/edge/management/v1/identities', {
      session: token, expectStatus: 201, headers: { traceparent: `00-${traceId}-2122334455667788-01` },
      body: { name: 'traced-identity', type: 'User', isAdmin: false, authPolicyId: policy.body.data.id, enrollment: { ott: true } },
    });
    const deleteTrace = 'c1b2c3d4e5f60718293a4b5c6d7e8f92';
    await c.http.delete(`/edge/management/v1/identities/${created.body.data.id}`, { session: token, expectStatus: 200, headers: { traceparent: `00-${deleteTrace}-3122334455667788-01` } });
    await new Promise((r) => setTimeout(r, 1500));

    const all = exporter.getFinishedSpans();
    const parentOf = (x: (typeof all)[number]) => (x as unknown as { parentSpanContext?: { spanId: string } }).parentSpanContext?.spanId;
    const spans = all.filter((x) => x.spanContext().traceId === traceId);
    const one = (pred: (x: (typeof spans)[number]) => boolean, what: string) => {
      const found = spans.find(pred);
      expect(found, what).toBeDefined();
      return found!;
    };
    const childOf = (parent: (typeof spans)[number], pred: (x: (typeof spans)[number]) => boolean, what: string) =>
      one((x) => parentOf(x) === parent.spanContext().spanId && pred(x), what);

    const http = one((x) => x.name === 'POST /edge/management/v1/identities', 'gateway span');
    // The gateway checks the auth policy with its owner, writes the identity, then asks pki for
    // its enrollment (the identity service calls no other service).
    const authServer = childOf(childOf(http, (x) => x.name === 'GetAuthPolicy', 'gateway → auth client span'), (x) => x.name === 'auth/GetAuthPolicy', 'auth server span');
    const identityServer = childOf(childOf(http, (x) => x.name === 'CreateIdentity', 'gateway → identity client span'), (x) => x.name === 'identity/CreateIdentity', 'identity server span');
    const pkiServer = childOf(childOf(http, (x) => x.name === 'CreateEnrollment', 'gateway → pki client span'), (x) => x.name === 'pki/CreateEnrollment', 'pki server span');
    for (const [server, schema] of [[identityServer, '_identity'], [authServer, '_auth'], [pkiServer, '_pki']] as const) {
      // A write is a transaction now (the change and its outbox event): look past `begin`.
      const sql = childOf(server, (x) => String(x.attributes['db.namespace'] ?? '').endsWith(schema)
        && /^(select|insert|update|delete|with)/i.test(String(x.attributes['db.query.text'])), `SQL under ${server.name}`);
      expect(JSON.stringify(sql.attributes)).not.toContain('traced-identity');
    }
    childOf(identityServer, (x) => x.name === 'publish edge.identity.identity.created', 'event published by the identity service');

    // The deletion's event is consumed by the auth service within the same trace.
    const del = all.filter((x) => x.spanContext().traceId === deleteTrace);
    const publish = del.find((x) => x.name === 'publish edge.identity.identity.deleted');
    expect(publish, 'delete event published').toBeDefined();
    const consumers = del.filter((x) => x.name === 'process edge.identity.identity.deleted' && parentOf(x) === publish!.spanContext().spanId);
    expect(consumers.length, 'delete event consumed as a child of its publish span').toBeGreaterThan(0);
  });

  it('names the trace of a request in x-trace-id, a new one when the caller sent none', async () => {
    exporter.reset();
    const answer = await c.http.get('/edge/client/v1/version', { expectStatus: 200 });
    const traceId = answer.headers['x-trace-id'] as string;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(traceId).not.toBe('0'.repeat(32));
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    await expect.poll(() => exporter.getFinishedSpans().some((s) => s.spanContext().traceId === traceId && s.name === 'GET /edge/client/v1/version')).toBe(true);
  });
});

import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contracts, type IdentityServiceHandlers, type PkiServiceHandlers } from '@edge/proto';
import { createRpcClient, stubHandlers } from '@edge/rpc';
import { serve, servers } from './test-fixtures.js';
import { startTelemetry, tracesUrl, type Telemetry } from './index.js';

const exporter = new InMemorySpanExporter();
let telemetry: Telemetry;
let identityAddr = '';

const notImplemented = async (): Promise<never> => {
  throw new Error('not implemented');
};

function parentOf(span: ReadableSpan): string | undefined {
  const s = span as ReadableSpan & { parentSpanId?: string };
  return span.parentSpanContext?.spanId ?? s.parentSpanId;
}

beforeAll(async () => {
  telemetry = startTelemetry({ serviceName: 'telemetry-test', namespace: 'edge-test', spanProcessors: [new SimpleSpanProcessor(exporter)] });

  const pkiAddr = await serve<PkiServiceHandlers>('pki', contracts.pki(), stubHandlers<PkiServiceHandlers>({
    GetServerTls: notImplemented,
    GetCaCerts: async () => ({ pkcs7Base64: '', pem: 'PEM' }),
  }));
  const pki = createRpcClient(contracts.pki(), pkiAddr, { deadlineMs: 5000 });
  identityAddr = await serve<IdentityServiceHandlers>('identity', contracts.identity(), stubHandlers<IdentityServiceHandlers>({
    GetIdentity: async (req) => {
      const ca = await pki.getCaCerts({});
      return { id: req.id, name: ca.pem };
    },
  }));
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop(500)));
  await telemetry?.shutdown();
});

describe('startTelemetry', () => {
  it('is idempotent per process', () => {
    expect(startTelemetry({ serviceName: 'other' })).toBe(telemetry);
  });

  it('names the OTLP traces path', () => {
    expect(tracesUrl('http://collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('http://collector:4318/')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('http://collector:4318/v1/traces')).toBe('http://collector:4318/v1/traces');
  });

  it('carries one trace from an active span through two gRPC hops', async () => {
    exporter.reset();
    const identity = createRpcClient(contracts.identity(), identityAddr, { deadlineMs: 5000 });
    const tracer = trace.getTracer('telemetry-test');
    const res = await tracer.startActiveSpan('http-request', async (span) => {
      try {
        return await identity.getIdentity({ id: 'i1' });
      } finally {
        span.end();
      }
    });
    identity.close();
    expect(res).toMatchObject({ id: 'i1', name: 'PEM' });

    // The SDK exports a span only once the detected resource attributes (host id, read
    // asynchronously) are in, which on a busy machine can come after the call returned.
    const until = Date.now() + 10_000;
    while (exporter.getFinishedSpans().length < 5 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const spans = exporter.getFinishedSpans();
    const root = spans.find((s) => s.name === 'http-request');
    expect(root).toBeDefined();
    expect(spans.map((s) => s.spanContext().traceId)).toEqual(spans.map(() => root!.spanContext().traceId));
    expect(parentOf(root!)).toBeUndefined();

    // Walk the chain from the root: each span has exactly one child.
    const chain: string[] = [];
    let current: ReadableSpan | undefined = root;
    while (current) {
      chain.push(`${current.name}:${SpanKind[current.kind]}`);
      const id: string = current.spanContext().spanId;
      const children = spans.filter((s) => parentOf(s) === id);
      expect(children.length).toBeLessThanOrEqual(1);
      current = children[0];
    }
    expect(chain).toEqual(['http-request:INTERNAL', 'GetIdentity:CLIENT', 'identity/GetIdentity:SERVER', 'GetCaCerts:CLIENT', 'pki/GetCaCerts:SERVER']);
    expect(spans).toHaveLength(5);
    expect(root!.resource.attributes).toMatchObject({ 'service.name': 'telemetry-test', 'service.namespace': 'edge-test' });
  });
});

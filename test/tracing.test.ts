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
    await c.http.get('/edge/management/v1/identities', { session: token, headers: { traceparent: `00-${traceId}-1122334455667788-01` }, expectStatus: 200 });
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
});

import { createRequire } from 'node:module';
import { ROOT_CONTEXT, context, propagation } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contracts, type IdentityServiceHandlers, type PkiServiceHandlers } from '@edge/proto';
import { createRpcClient, stubHandlers } from '@edge/rpc';
import { serve, servers } from './test-fixtures.js';
import { startTelemetry, type Telemetry } from './index.js';

// A process without an OTLP endpoint: context manager and propagator, no tracer provider.
const telemetry: Telemetry = startTelemetry({ serviceName: 'idle-test' });
let identityAddr = '';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** The `traceparent` the active context would send on. */
function activeTraceparent(): string {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? '';
}

beforeAll(async () => {
  const pkiAddr = await serve<PkiServiceHandlers>('pki', contracts.pki(), stubHandlers<PkiServiceHandlers>({
    GetCaCerts: async () => ({ pkcs7Base64: '', pem: activeTraceparent() }),
  }));
  const pki = createRpcClient(contracts.pki(), pkiAddr, { deadlineMs: 5000, tls: null });
  identityAddr = await serve<IdentityServiceHandlers>('identity', contracts.identity(), stubHandlers<IdentityServiceHandlers>({
    GetIdentity: async () => ({ id: activeTraceparent(), name: (await pki.getCaCerts({})).pem }),
  }));
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop(500)));
  await telemetry.shutdown();
});

describe('calls in a process that records no spans', () => {
  it('pass the trace context they were given on, unchanged, through two gRPC hops', async () => {
    const identity = createRpcClient(contracts.identity(), identityAddr, { deadlineMs: 5000, tls: null });
    const given = propagation.extract(ROOT_CONTEXT, { traceparent: TRACEPARENT });
    const res = await context.with(given, () => identity.getIdentity({ id: 'i1' }));
    identity.close();
    expect(res).toMatchObject({ id: TRACEPARENT, name: TRACEPARENT });
  });

  it('carry no trace context when they were given none', async () => {
    const identity = createRpcClient(contracts.identity(), identityAddr, { deadlineMs: 5000, tls: null });
    const res = await identity.getIdentity({ id: 'i1' });
    identity.close();
    expect(res).toMatchObject({ id: '', name: '' });
  });

  it('leave node:http unpatched: without a span processor no instrumentation wraps requests', () => {
    const http = createRequire(import.meta.url)('node:http') as typeof import('node:http');
    expect((http.Server.prototype.emit as { __wrapped?: boolean }).__wrapped).toBeUndefined();
    expect((http.request as { __wrapped?: boolean }).__wrapped).toBeUndefined();
  });
});

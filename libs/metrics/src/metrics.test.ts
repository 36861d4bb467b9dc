import { afterEach, describe, expect, it } from 'vitest';
import { buildInfo, processMetrics, recordAuthentication, startMetricsServer, UNMATCHED_ROUTE, VERSION, type MetricsServer } from './index.js';

let server: MetricsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The value of one sample line of the exposition text, or undefined when absent. */
function sample(text: string, prefix: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('@edge/metrics', () => {
  it('is one set of instruments per process', () => {
    expect(processMetrics()).toBe(processMetrics());
  });

  it('serves what was recorded on GET /metrics, and 404 elsewhere', async () => {
    const m = processMetrics();
    m.grpcHandled('edge.test.v1.TestService', 'GetThing', 'NOT_FOUND', 0.003);
    m.httpRequest('GET', '/things/:id', 404, 0.02);
    m.httpRequest('PROPFIND', UNMATCHED_ROUTE, 404, 0.001);
    recordAuthentication('password', 'failure');
    recordAuthentication('password', 'failure');
    server = await startMetricsServer('127.0.0.1:0', m.registry);

    const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(sample(text, 'edge_grpc_server_handling_seconds_count{grpc_service="edge.test.v1.TestService",grpc_method="GetThing",grpc_code="NOT_FOUND"}')).toBe(1);
    expect(sample(text, 'edge_grpc_server_handling_seconds_bucket{le="0.005",grpc_service="edge.test.v1.TestService",grpc_method="GetThing",grpc_code="NOT_FOUND"}')).toBe(1);
    expect(sample(text, 'edge_grpc_server_handling_seconds_bucket{le="0.0025",grpc_service="edge.test.v1.TestService",grpc_method="GetThing",grpc_code="NOT_FOUND"}')).toBe(0);
    expect(sample(text, 'edge_http_server_request_duration_seconds_count{method="GET",route="/things/:id",status_code="404"}')).toBe(1);
    expect(sample(text, 'edge_authentications_total{method="password",result="failure"}')).toBe(2);
    expect(sample(text, 'edge_http_server_request_duration_seconds_count{method="other",route="unmatched",status_code="404"}')).toBe(1);
    expect(text).not.toContain('PROPFIND');
    expect(sample(text, `edge_build_info{version="v${VERSION}",revision="${buildInfo().revision}",build_date="${buildInfo().buildDate}",node_version="${process.version}"}`)).toBe(1);
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);

    expect((await fetch(`http://127.0.0.1:${server.port}/other`)).status).toBe(404);
  });

  it('names the build from the image\'s revision and date when set', () => {
    expect(buildInfo({ EDGE_REVISION: 'abc123', EDGE_BUILD_DATE: '2026-01-02T03:04:05Z' })).toEqual({
      version: `v${VERSION}`, revision: 'abc123', buildDate: '2026-01-02T03:04:05Z', nodeVersion: process.version,
    });
    expect(buildInfo({})).toMatchObject({ revision: 'local', buildDate: new Date(0).toISOString() });
  });

  it('fails to start on an address in use rather than serving nothing', async () => {
    server = await startMetricsServer('127.0.0.1:0', processMetrics().registry);
    await expect(startMetricsServer(`127.0.0.1:${server.port}`, processMetrics().registry)).rejects.toThrow(/EADDRINUSE/);
  });
});

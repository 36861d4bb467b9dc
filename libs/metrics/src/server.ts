/**
 * The plain-HTTP `/metrics` endpoint Prometheus scrapes. Separate from the gateway's HTTPS
 * listener, which asks for client certificates, and from the gRPC ports.
 */
import { createServer } from 'node:http';
import type { Registry } from 'prom-client';

/** A listening metrics endpoint. */
export interface MetricsServer {
  /** The bound port (useful when listening on port 0). */
  readonly port: number;
  close(): Promise<void>;
}

/** Listens on `addr` (host:port, port 0 picks one) and answers `GET /metrics` from `registry`. */
export async function startMetricsServer(addr: string, registry: Registry): Promise<MetricsServer> {
  const i = addr.lastIndexOf(':');
  const host = addr.slice(0, i).replace(/^\[|\]$/g, '');
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err)),
    );
  });
  // Scrapes are short; a stuck scraper must not hold a shutdown.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(addr.slice(i + 1)), host, () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

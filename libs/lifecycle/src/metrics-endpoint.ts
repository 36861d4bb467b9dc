import type { Config } from '@edge/config';
import type { Logger } from '@edge/logging';
import { processMetrics, startMetricsServer, type MetricsServer } from '@edge/metrics';

/**
 * Starts this process's Prometheus endpoint when EDGE_METRICS_ADDR is set, else returns
 * undefined. Started before the service so that a slow start (migrations, waiting for
 * another service) can already be watched; stopped after it.
 */
export async function openMetricsEndpoint(config: Config, log: Logger): Promise<MetricsServer | undefined> {
  if (!config.metrics.addr) return undefined;
  const server = await startMetricsServer(config.metrics.addr, processMetrics().registry);
  log.info({ port: server.port }, 'metrics endpoint listening');
  return server;
}

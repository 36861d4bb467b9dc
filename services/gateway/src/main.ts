import { loadConfig } from '@edge/config';
import { createLogger } from '@edge/logging';
import { openBus, openMetricsEndpoint, runUntilSignal } from '@edge/lifecycle';
import { startTelemetry } from '@edge/telemetry';
import { createGateway } from './gateway.js';

// The gateway owns no schema; it only needs the bus for cache invalidation.
const config = loadConfig();
const telemetry = startTelemetry({ serviceName: 'gateway', namespace: config.otel.namespace, otlpEndpoint: config.otel.endpoint });
const log = createLogger({ level: config.log.level, name: 'gateway' });
const metrics = await openMetricsEndpoint(config, log);
const bus = await openBus(config, log, 'gateway');
const gateway = createGateway({ config, bus, log });
await runUntilSignal(
  {
    start: () => gateway.start(),
    stop: async () => {
      await gateway.stop();
      await bus.close();
      await metrics?.close();
      await telemetry.shutdown();
    },
  },
  log,
  config.shutdownGraceMs,
);

import { createLogger } from '@edge/logging';
import { commandOrExit, joinServiceMesh, loadConfigOrExit, meshCredentialsFor, openBus, openMetricsEndpoint, runUntilSignal } from '@edge/lifecycle';
import type { Bus } from '@edge/bus';
import { startTelemetry } from '@edge/telemetry';
import { createGateway, type Gateway } from './gateway.js';

commandOrExit({ program: 'node services/gateway/dist/main.js', commands: { serve: 'run the gateway (both REST APIs over HTTPS)' } });
// The gateway owns no schema; it only needs the bus for cache invalidation.
const config = loadConfigOrExit();
const telemetry = startTelemetry({ serviceName: 'gateway', namespace: config.otel.namespace, otlpEndpoint: config.otel.endpoint });
const log = createLogger({ level: config.log.level, name: 'gateway', format: config.log.format });
let metrics: Awaited<ReturnType<typeof openMetricsEndpoint>>;
let bus: Bus | undefined;
let gateway: Gateway | undefined;
// Internal mutual TLS: the gateway's gRPC clients present the certificate it obtains from pki.
const mesh = meshCredentialsFor(config);
let stopRenewing: (() => void) | undefined;
await runUntilSignal(
  {
    start: async () => {
      metrics = await openMetricsEndpoint(config, log);
      bus = await openBus(config, log, 'gateway');
      if (mesh) stopRenewing = await joinServiceMesh(mesh, config, 'gateway', log);
      gateway = createGateway({ config, bus, log });
      await gateway.start();
    },
    stop: async () => {
      stopRenewing?.();
      await gateway?.stop();
      await bus?.close();
      await metrics?.close();
      await telemetry.shutdown();
    },
  },
  log,
  config.shutdownGraceMs,
  config,
);

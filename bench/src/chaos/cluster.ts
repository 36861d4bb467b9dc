/**
 * The controller a chaos run breaks: the local cluster (one supervised process per service and
 * the gateway) against a NATS server of the run's own, on a spare port, and the shared Postgres
 * reached through a relay, so that an outage of either is the run's alone.
 */
import { readFileSync } from 'node:fs';
import { SERVICE_NAMES, type ServiceName } from '@edge/config';
import { answers, serving } from '@edge/launcher';
import { freePort, freePortBlock, startNatsServer, startTcpProxy, type TcpProxy, type TestNatsServer } from '@edge/testing';
import { cleanup, CLUSTER_PORT_SPAN, controllerEnv, scratchDir, startController, type RunningController } from '../controller.js';
import { children } from '../processes.js';

/** A running chaos target and the handles to break it. */
export interface ChaosCluster {
  url: string;
  nats: TestNatsServer;
  postgres: TcpProxy;
  /** The pid of the supervised process running `services/<name>/dist/main.js`, if it runs now. */
  pidOf(name: string): number | undefined;
  /** True when `name` (a service: its gRPC health; the gateway: its HTTPS) serves now. */
  serves(name: string): Promise<boolean>;
  stop(): Promise<void>;
}

/** `url` with its host and port replaced by the relay's. */
function viaProxy(url: string, proxy: TcpProxy): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(proxy.port);
  return u.toString().replace(/\/$/, '');
}

/** Starts NATS, the Postgres relay and the cluster under `prefix`; undoes what started on failure. */
export async function startChaosCluster(databaseUrl: string, prefix: string, extraEnv: Record<string, string> = {}): Promise<ChaosCluster> {
  const pg = new URL(databaseUrl);
  const nats = await startNatsServer();
  const postgres = await startTcpProxy(Number(pg.port || 5432), pg.hostname);
  const dir = scratchDir();
  const target = { databaseUrl: viaProxy(databaseUrl, postgres), natsUrl: nats.url, prefix };
  let controller: RunningController | undefined;
  const basePort = await freePortBlock(CLUSTER_PORT_SPAN);
  const stop = async () => {
    await controller?.stop();
    await postgres.restore();
    await nats.start();
    await cleanup({ ...target, databaseUrl }).catch(() => undefined);
    await postgres.close();
    await nats.close();
    dir.remove();
  };
  try {
    const env = { ...controllerEnv(target, await freePort(), basePort, dir.path), ...extraEnv };
    controller = await startController('cluster', env);
  } catch (err) {
    await stop();
    throw err;
  }
  const launcher = controller.pid;
  // Should this process end without stopping the cluster (a crash, Ctrl-C), the launcher stops
  // its processes, and the NATS server goes with it.
  const orphans = () => {
    for (const pid of [launcher, ...children(process.pid).filter((p) => cmdline(p).includes(`-p\0${nats.port}\0`))]) {
      try {
        process.kill(pid, pid === launcher ? 'SIGTERM' : 'SIGKILL');
      } catch {
        // gone already
      }
    }
  };
  process.once('exit', orphans);
  return {
    url: controller.url,
    nats,
    postgres,
    pidOf: (name) => children(launcher).find((pid) => cmdline(pid).includes(`services/${name}/dist/main.js`)),
    // Replica 0 of service n listens on base + 10·n (the launcher's clusterPorts).
    serves: (name) => (name === 'gateway' ? answers(controller.url) : serving(name, `127.0.0.1:${basePort + 10 * SERVICE_NAMES.indexOf(name as ServiceName)}`)),
    async stop() {
      process.off('exit', orphans);
      await stop();
    },
  };
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/**
 * Checks, before anything is started or created, that the ports the launcher will use are
 * free, so that a port in use is one line naming the setting rather than a process failing
 * (and, in a cluster, being restarted) later.
 */
import { createServer } from 'node:net';
import type { Config } from '@edge/config';
import { explainListenFailure, StartupError } from '@edge/lifecycle';

/** Resolves when `host:port` can be listened on now; rejects with the listen error otherwise. */
export function probeListen(host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** Fails with EDGE_HTTP_ADDR named when the gateway's HTTPS address cannot be listened on. */
export async function checkHttpAddress(config: Config): Promise<void> {
  const i = config.http.addr.lastIndexOf(':');
  const [host, port] = [config.http.addr.slice(0, i).replace(/^\[|\]$/g, ''), Number(config.http.addr.slice(i + 1))];
  if (port === 0) return;
  await probeListen(host, port).catch((err: unknown) => {
    throw explainListenFailure(err, config) ?? err;
  });
}

/** Fails with EDGE_CLUSTER_BASE_PORT named when a port of the cluster's gRPC servers is taken. */
export async function checkClusterPorts(ports: Record<string, number[]>, basePort: number): Promise<void> {
  for (const [service, list] of Object.entries(ports)) {
    for (const [replica, port] of list.entries()) {
      await probeListen('127.0.0.1', port).catch(() => {
        throw new StartupError('EDGE_CLUSTER_BASE_PORT', String(basePort), `port ${port} (${service}-${replica}) is in use`);
      });
    }
  }
}

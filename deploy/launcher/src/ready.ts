/**
 * When a started cluster is ready: every service replica answers the gRPC health check with
 * SERVING and the gateway answers HTTPS. Until then no banner says it is.
 */
import { request } from 'node:https';
import { contracts } from '@edge/proto';
import { createRpcClient } from '@edge/rpc';
import type { Logger } from '@edge/logging';

/** What must answer: gRPC addresses by process name, and the gateway's https://host:port. */
export interface ReadinessTargets {
  grpc: Record<string, string>;
  gatewayUrl: string;
}

const POLL_MS = 250;
const REPORT_EVERY_MS = 15_000;

/** True when the gRPC server of process `name` (`<service>-<replica>`) at `address` reports SERVING. */
export async function serving(name: string, address: string): Promise<boolean> {
  // Under mutual TLS the server must prove to be that service.
  const serverName = name.replace(/-\d+$/, '');
  const health = createRpcClient(contracts.health(), address, { deadlineMs: 1_000, serverName }) as unknown as { check(r: object): Promise<{ status: string }>; close(): void };
  try {
    return (await health.check({})).status === 'SERVING';
  } catch {
    return false;
  } finally {
    health.close();
  }
}

/** True when the gateway at `url` (https://host:port) answers its version with 200. */
export function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    // The launcher does not hold the controller's CA; it only asks whether the gateway answers.
    const req = request(`${url}/edge/client/v1/version`, { rejectUnauthorized: false, timeout: 1_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/**
 * Resolves once everything in `targets` answers; logs what is still missing every 15 s.
 * Rejects when `signal` aborts (the launcher is stopping).
 */
export async function waitUntilReady(targets: ReadinessTargets, log: Logger, signal?: AbortSignal): Promise<void> {
  const pending = new Set([...Object.keys(targets.grpc), 'gateway']);
  let reported = Date.now();
  while (pending.size > 0) {
    signal?.throwIfAborted();
    await Promise.all([...pending].map(async (name) => {
      const ok = name === 'gateway' ? await answers(targets.gatewayUrl) : await serving(name, targets.grpc[name]!);
      if (ok) pending.delete(name);
    }));
    if (pending.size === 0) return;
    if (Date.now() - reported > REPORT_EVERY_MS) {
      reported = Date.now();
      log.warn({ waitingFor: [...pending] }, `not ready yet, waiting for ${[...pending].join(', ')}`);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

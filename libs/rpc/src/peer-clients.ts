/**
 * Clients of the other services as the configuration names them: each at its configured target,
 * with the configured deadline unless the caller needs another (a long integrity run).
 */
import { contracts } from '@edge/proto';
import { createRpcClient, type RpcClient, type RpcClientOptions } from './client.js';

/** The services a process calls: every contract but the standard health check. */
export type PeerName = Exclude<keyof typeof contracts, 'health'>;

/** The promise client of service `N` (`RpcClient<IdentityServiceClient>` for `identity`). */
export type PeerClient<N extends PeerName> = RpcClient<InstanceType<ReturnType<(typeof contracts)[N]>>>;

/** Clients of the services `N`, by name, and `close()` closing them all. */
export type PeerClients<N extends PeerName> = { [K in N]: PeerClient<K> } & { close(): void };

/** Where each service is reached and the deadline of its calls: the configuration's `grpc` part. */
export interface PeerTargets {
  targets: Record<PeerName, string>;
  deadlineMs: number;
}

/** What a caller may set differently from the configuration (see {@link RpcClientOptions}). */
export type PeerClientOptions = Partial<Pick<RpcClientOptions, 'deadlineMs' | 'tls'>>;

/** A client of service `name` at its configured target, with the configured deadline unless `options` give one. */
export function peerClient<N extends PeerName>(grpc: PeerTargets, name: N, options: PeerClientOptions = {}): PeerClient<N> {
  const ctor = contracts[name]() as Parameters<typeof createRpcClient>[0];
  const client = createRpcClient(ctor, grpc.targets[name], { ...options, deadlineMs: options.deadlineMs ?? grpc.deadlineMs });
  return client as unknown as PeerClient<N>;
}

/** Clients of the services `names` (see {@link peerClient}), with one `close()` for all of them. */
export function peerClients<const N extends PeerName>(grpc: PeerTargets, names: readonly N[], options: PeerClientOptions = {}): PeerClients<N> {
  const clients = Object.fromEntries(names.map((name) => [name, peerClient(grpc, name, options)])) as { [K in N]: PeerClient<K> };
  return { ...clients, close: () => Object.values<{ close(): void }>(clients).forEach((c) => c.close()) };
}

/**
 * In-process targets, `local:<name>`: the server binds 127.0.0.1 on a port the OS picks, and
 * clients in the same process reach it by name. The standalone controller runs every service
 * this way, so two controllers on one host never compete for fixed ports. A server restarted in
 * the process binds the port it had before, so clients keep their connections' address.
 */
const bound = new Map<string, number>();
const PREFIX = 'local:';

/** The in-process target named `name`. */
export function localTarget(name: string): string {
  return `${PREFIX}${name}`;
}

/** True for a `local:` target. */
export function isLocalTarget(target: string): boolean {
  return target.startsWith(PREFIX);
}

/** The host:port a target resolves to now: itself, or a local target's bound address (undefined before it is bound). */
export function resolveTarget(target: string): string | undefined {
  if (!isLocalTarget(target)) return target;
  const port = bound.get(target.slice(PREFIX.length));
  return port === undefined ? undefined : `127.0.0.1:${port}`;
}

/** The address to bind for `addr`: a local target's earlier port, or port 0 the first time. */
export function bindAddress(addr: string): string {
  if (!isLocalTarget(addr)) return addr;
  return `127.0.0.1:${bound.get(addr.slice(PREFIX.length)) ?? 0}`;
}

/** Records the port a local target's server bound. */
export function recordBound(addr: string, port: number): void {
  if (isLocalTarget(addr)) bound.set(addr.slice(PREFIX.length), port);
}

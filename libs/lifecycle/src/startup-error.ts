/**
 * Failures at start-up that are the operator's to fix (a bad setting, a port in use, a database
 * or NATS that cannot be reached) end the process with one line naming the variable at fault and
 * its value (secrets hidden), and no stack trace. Anything else is a bug and is logged with its
 * stack.
 */
import { ConfigError, displayValue, loadConfig, SERVICE_NAMES, type Config } from '@edge/config';
import type { Logger } from '@edge/logging';

/** A start-up failure caused by one setting: `EDGE_HTTP_ADDR "127.0.0.1:1280": address in use`. */
export class StartupError extends Error {
  constructor(readonly variable: string, value: string | undefined, reason: string) {
    super(`${variable} ${displayValue(variable, value)}: ${reason}`);
    this.name = 'StartupError';
  }
}

const LISTEN_REASONS: Record<string, string> = {
  EADDRINUSE: 'address in use',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'not an address of this host',
};

/** Why a connection could not be made, in a few words, from Node, pg and NATS error codes. */
const CONNECT_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  CONNECTION_REFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ETIMEDOUT: 'connection timed out',
  TIMEOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
  '28P01': 'authentication failed',
  '28000': 'authentication failed',
  AUTHORIZATION_VIOLATION: 'authentication failed',
  '3D000': 'database does not exist',
  '53300': 'too many connections',
};

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The port of `host:port`, `[v6]:port` or a grpc-js target ending in one. */
function portOf(address: string | undefined): number | undefined {
  const m = address === undefined ? null : /:(\d+)$/.exec(address);
  return m ? Number(m[1]) : undefined;
}

/** The address variables of `config` with their values, in the order they are checked. */
function listenVariables(config: Config): Array<[string, string | undefined]> {
  return [
    ['EDGE_HTTP_ADDR', config.http.addr],
    ['EDGE_METRICS_ADDR', config.metrics.addr],
    ['EDGE_GRPC_LISTEN_ADDR', config.grpc.listenAddr],
    ...SERVICE_NAMES.map((s): [string, string] => [`EDGE_${s.toUpperCase()}_GRPC_ADDR`, config.grpc.targets[s]]),
  ];
}

/**
 * A failure to listen (EADDRINUSE, EACCES, EADDRNOTAVAIL) as a {@link StartupError} naming the
 * address variable whose port it is; undefined for any other error.
 */
export function explainListenFailure(err: unknown, config: Config): StartupError | undefined {
  const reason = LISTEN_REASONS[codeOf(err) ?? ''];
  if (!reason) return undefined;
  const e = err as { port?: unknown; address?: unknown };
  const port = typeof e.port === 'number' ? e.port : portOf(typeof e.address === 'string' ? e.address : undefined);
  const match = listenVariables(config).find(([, value]) => value !== undefined && port !== undefined && port !== 0 && portOf(value) === port);
  if (match) return new StartupError(match[0], match[1], reason);
  return undefined;
}

/** A failure to reach the service `variable` names, as a {@link StartupError} (always). */
export function connectFailure(variable: string, value: string | undefined, err: unknown): StartupError {
  const code = codeOf(err);
  const reason = (code && CONNECT_REASONS[code]) ?? (err instanceof Error ? err.message.split('\n')[0]! : String(err));
  return new StartupError(variable, value, reason);
}

/** The one line to print for an operator's failure, or undefined for a bug. */
export function describeStartupFailure(err: unknown, config?: Config): string | undefined {
  if (err instanceof ConfigError || err instanceof StartupError) return err.message;
  return config ? explainListenFailure(err, config)?.message : undefined;
}

/**
 * Ends the process after a failed start: one line on stderr for an operator's failure (exit 1),
 * else the error logged with its stack (exit 1).
 */
export function exitAfterFailedStart(err: unknown, log: Logger | undefined, config?: Config): never {
  const line = describeStartupFailure(err, config);
  if (line) process.stderr.write(`cannot start: ${line}\n`);
  else if (log) log.fatal({ err }, 'failed to start');
  else process.stderr.write(`cannot start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
}

/** {@link loadConfig}, ending the process with one line when a setting is bad. */
export function loadConfigOrExit(env: Record<string, string | undefined> = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    return exitAfterFailedStart(err, undefined);
  }
}

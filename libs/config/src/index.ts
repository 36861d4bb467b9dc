/**
 * Configuration from environment variables with the `EDGE_` prefix, parsed once with zod.
 * Every process (a single service, the gateway, or the standalone controller) reads the same
 * schema and uses the parts it needs.
 */
import { isIP } from 'node:net';
import { z } from 'zod';

export const SERVICE_NAMES = ['auth', 'pki', 'identity', 'policy', 'session'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** Default gRPC addresses of the five services (loopback; overridden per deployment). */
export const DEFAULT_GRPC_PORTS: Record<ServiceName, number> = {
  auth: 50051,
  pki: 50052,
  identity: 50053,
  policy: 50054,
  session: 50055,
};

const addr = z
  .string()
  .regex(/^[^\s:]+:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$/, 'expected host:port')
  .refine((a) => Number(a.slice(a.lastIndexOf(':') + 1)) <= 65_535, 'port must be 0-65535');
/** A gRPC target: host:port, or any grpc-js target URI (dns:///svc:50051, ipv4:a:1,b:2). */
const target = z
  .string()
  .min(3)
  .refine((t) => [...t.matchAll(/:(\d+)(?=,|$)/g)].every((m) => Number(m[1]) <= 65_535), 'port must be 0-65535');
const list = z
  .string()
  .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean));
/** Comma-separated NATS servers: nats://, tls://, ws:// or wss:// URLs, or host:port. */
const natsServers = z
  .string()
  .refine((s) => s.split(',').every((u) => /^(nats|tls|wss?):\/\/[^\s/]+\/?$|^[^\s:/]+(:\d{1,5})?$/.test(u.trim())), 'expected nats://host:port (comma-separated for several servers)');
/** `*`, or web origins as browsers send them in `Origin` (`https://console.example:8443`, no path). */
const origins = list.refine(
  (xs) => xs.length > 0 && xs.every((o) => o === '*' || isOrigin(o)),
  'expected * or comma-separated origins such as https://console.example.com',
);

const schema = z.object({
  EDGE_DATA_DIR: z.string().default('./data'),
  EDGE_DATABASE_URL: z.string().url().optional(),
  EDGE_DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  EDGE_DATABASE_SCHEMA_PREFIX: z.string().regex(/^[a-z_][a-z0-9_]*$|^$/).default(''),
  EDGE_NATS_URL: natsServers.optional(),
  EDGE_NATS_SUBJECT_PREFIX: z.string().regex(/^[A-Za-z0-9_-]+\.$|^$/, 'letters, digits, _ or - followed by a dot').default(''),
  EDGE_HTTP_ADDR: addr.default('127.0.0.1:1280'),
  EDGE_ADVERTISED_ADDRESS: addr.optional(),
  EDGE_TLS_SANS: list.default([]),
  EDGE_CORS_ALLOWED_ORIGINS: origins.default(['*']),
  EDGE_ADMIN_USERNAME: z.string().min(4).max(100).default('admin'),
  EDGE_ADMIN_PASSWORD: z.string().min(5).max(100).optional(),
  EDGE_KEY_ENCRYPTION_KEY: z.string().optional(),
  EDGE_API_SESSION_TIMEOUT_MINUTES: z.coerce.number().int().min(1).max(7 * 24 * 60).default(30),
  EDGE_AUTH_MAX_CONCURRENT: z.coerce.number().int().min(1).max(1000).default(16),
  EDGE_AUTH_RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(24 * 3600).default(60),
  EDGE_AUTH_RATE_LIMIT_PER_IP: z.coerce.number().int().min(1).max(1_000_000).default(120),
  EDGE_AUTH_RATE_LIMIT_PER_USERNAME: z.coerce.number().int().min(1).max(1_000_000).default(20),
  EDGE_GRPC_LISTEN_ADDR: addr.optional(),
  EDGE_GRPC_DEADLINE_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  EDGE_GRPC_TLS: z.enum(['off', 'mtls']).default('off'),
  EDGE_GRPC_JOIN_TOKEN: z.string().min(32, 'at least 32 characters (e.g. `openssl rand -hex 32`)').max(1024).optional(),
  EDGE_AUTH_GRPC_ADDR: target.optional(),
  EDGE_PKI_GRPC_ADDR: target.optional(),
  EDGE_IDENTITY_GRPC_ADDR: target.optional(),
  EDGE_POLICY_GRPC_ADDR: target.optional(),
  EDGE_SESSION_GRPC_ADDR: target.optional(),
  EDGE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  EDGE_LOG_FORMAT: z.enum(['pretty', 'json']).optional(),
  EDGE_OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  EDGE_OTEL_SERVICE_NAMESPACE: z.string().default('edge-controller'),
  EDGE_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
  EDGE_ENROLLMENT_DURATION_MINUTES: z.coerce.number().int().min(1).max(366 * 24 * 60).default(180),
  EDGE_METRICS_ADDR: addr.optional(),
  EDGE_EVALUATION_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(10_000),
  EDGE_OUTBOX_POLL_MS: z.coerce.number().int().min(10).max(600_000).default(1_000),
  EDGE_RECONCILE_INTERVAL_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(60_000),
});

type Raw = z.infer<typeof schema>;

/** The typed configuration every process works from. */
export interface Config {
  dataDir: string;
  database: { url?: string; poolSize: number; schemaPrefix: string };
  nats: { url?: string; subjectPrefix: string };
  /** `corsAllowedOrigins`: web origins whose pages may call the APIs (`*`: any, as OpenZiti). */
  http: { addr: string; advertisedAddress: string; tlsSans: string[]; corsAllowedOrigins: string[] };
  admin: { username: string; password?: string };
  keyEncryptionKey?: string;
  apiSessionTimeoutMinutes: number;
  /** Bounds on authentication per auth process: concurrent ones, and attempts per window per source IP and per username. */
  authRateLimit: { maxConcurrent: number; windowSeconds: number; perIp: number; perUsername: number };
  /**
   * `targets`: where each service is reached; `defaultTargets`: the services whose target is
   * the built-in default (no EDGE_<SERVICE>_GRPC_ADDR), which the standalone controller binds on
   * ports the OS picks instead.
   */
  grpc: { listenAddr?: string; deadlineMs: number; targets: Record<ServiceName, string>; defaultTargets: ServiceName[]; tls: GrpcTls };
  /** `format` unset: human-readable on a terminal, JSON lines otherwise (see @edge/logging). */
  log: { level: Raw['EDGE_LOG_LEVEL']; format?: 'pretty' | 'json' };
  otel: { endpoint?: string; namespace: string };
  shutdownGraceMs: number;
  /** Lifetime of new identity and router enrollments (OpenZiti's default is 180 minutes). */
  enrollmentDurationMinutes: number;
  /** Where this process serves Prometheus `/metrics` (plain HTTP); none when unset. */
  metrics: { addr?: string };
  /**
   * How long the policy service may serve an evaluated service list, and the gateway hold a
   * service page, a service-update marker or a management identity page, while no change that
   * ends them was heard (0: not at all).
   */
  evaluationCacheTtlMs: number;
  /**
   * Events: how often a service's outbox relay looks for events nobody woke it for (it is woken
   * at once after its own commits), and the interval of the periodic reconciliations that
   * repair what a lost or late event left.
   */
  events: { outboxPollMs: number; reconcileIntervalMs: number };
}

/**
 * Transport security between processes. `off`: plaintext gRPC. `mtls`: every gRPC server
 * requires a client certificate issued by the controller's internal service CA, and every client
 * presents one and verifies the server's; each process obtains its certificate from the pki
 * service by proving it holds `joinToken` (required then). See @edge/rpc `joinMesh`.
 */
export interface GrpcTls {
  mode: 'off' | 'mtls';
  joinToken?: string;
}

/**
 * Thrown when the environment does not parse. Its message is one line naming every variable at
 * fault with the value it had (a secret's value is never shown; see {@link displayValue}).
 */
export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`invalid configuration: ${issues.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** Variables whose values are never written anywhere: passwords and keys. */
const SECRET_VARIABLES = new Set(['EDGE_ADMIN_PASSWORD', 'EDGE_KEY_ENCRYPTION_KEY', 'EDGE_GRPC_JOIN_TOKEN']);

/**
 * A variable's value as messages may show it: quoted, the password of a URL masked, a secret
 * variable's value replaced by a note.
 */
export function displayValue(variable: string, value: string | undefined): string {
  if (value === undefined) return 'unset';
  if (SECRET_VARIABLES.has(variable)) return '(value hidden)';
  return JSON.stringify(maskUrlPassword(value));
}

/** `scheme://user:secret@host` → `scheme://user:***@host`, in each comma-separated URL. */
export function maskUrlPassword(value: string): string {
  return value.replace(/(\w[\w+.-]*:\/\/[^:/@,\s]*):[^@/,\s]*@/g, '$1:***@');
}

/** Parses the environment (default `process.env`) into a {@link Config}. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked = Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith('EDGE_') && v !== ''));
  const parsed = schema.safeParse(picked);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => {
      const variable = i.path.join('.');
      return `${variable} ${displayValue(variable, picked[variable])}: ${i.message}`;
    }));
  }
  const r = parsed.data;
  const given: Record<ServiceName, string | undefined> = {
    auth: r.EDGE_AUTH_GRPC_ADDR,
    pki: r.EDGE_PKI_GRPC_ADDR,
    identity: r.EDGE_IDENTITY_GRPC_ADDR,
    policy: r.EDGE_POLICY_GRPC_ADDR,
    session: r.EDGE_SESSION_GRPC_ADDR,
  };
  const unreachable = unreachableAdvertisedAddress(r.EDGE_ADVERTISED_ADDRESS, r.EDGE_HTTP_ADDR);
  if (unreachable) throw new ConfigError([unreachable]);
  if (r.EDGE_GRPC_TLS === 'mtls' && r.EDGE_GRPC_JOIN_TOKEN === undefined) {
    throw new ConfigError(['EDGE_GRPC_JOIN_TOKEN unset: required when EDGE_GRPC_TLS is "mtls" (the same secret in every process, e.g. `openssl rand -hex 32`)']);
  }
  return {
    dataDir: r.EDGE_DATA_DIR,
    database: { url: r.EDGE_DATABASE_URL, poolSize: r.EDGE_DATABASE_POOL_SIZE, schemaPrefix: r.EDGE_DATABASE_SCHEMA_PREFIX },
    nats: { url: r.EDGE_NATS_URL, subjectPrefix: r.EDGE_NATS_SUBJECT_PREFIX },
    http: {
      addr: r.EDGE_HTTP_ADDR, advertisedAddress: r.EDGE_ADVERTISED_ADDRESS ?? r.EDGE_HTTP_ADDR, tlsSans: r.EDGE_TLS_SANS,
      corsAllowedOrigins: r.EDGE_CORS_ALLOWED_ORIGINS,
    },
    admin: { username: r.EDGE_ADMIN_USERNAME, password: r.EDGE_ADMIN_PASSWORD },
    keyEncryptionKey: r.EDGE_KEY_ENCRYPTION_KEY,
    apiSessionTimeoutMinutes: r.EDGE_API_SESSION_TIMEOUT_MINUTES,
    authRateLimit: {
      maxConcurrent: r.EDGE_AUTH_MAX_CONCURRENT,
      windowSeconds: r.EDGE_AUTH_RATE_LIMIT_WINDOW_SECONDS,
      perIp: r.EDGE_AUTH_RATE_LIMIT_PER_IP,
      perUsername: r.EDGE_AUTH_RATE_LIMIT_PER_USERNAME,
    },
    grpc: {
      listenAddr: r.EDGE_GRPC_LISTEN_ADDR,
      deadlineMs: r.EDGE_GRPC_DEADLINE_MS,
      targets: Object.fromEntries(SERVICE_NAMES.map((s) => [s, given[s] ?? `127.0.0.1:${DEFAULT_GRPC_PORTS[s]}`])) as Record<ServiceName, string>,
      defaultTargets: SERVICE_NAMES.filter((s) => given[s] === undefined),
      tls: { mode: r.EDGE_GRPC_TLS, joinToken: r.EDGE_GRPC_JOIN_TOKEN },
    },
    log: { level: r.EDGE_LOG_LEVEL, format: r.EDGE_LOG_FORMAT },
    otel: { endpoint: r.EDGE_OTEL_EXPORTER_OTLP_ENDPOINT, namespace: r.EDGE_OTEL_SERVICE_NAMESPACE },
    shutdownGraceMs: r.EDGE_SHUTDOWN_GRACE_MS,
    enrollmentDurationMinutes: r.EDGE_ENROLLMENT_DURATION_MINUTES,
    metrics: { addr: r.EDGE_METRICS_ADDR },
    evaluationCacheTtlMs: r.EDGE_EVALUATION_CACHE_TTL_MS,
    events: { outboxPollMs: r.EDGE_OUTBOX_POLL_MS, reconcileIntervalMs: r.EDGE_RECONCILE_INTERVAL_MS },
  };
}

/**
 * Why the address handed to clients (API URLs, enrollment JWT `iss`, network JWT `ctrls`) names
 * no host they could reach, or undefined when it names one. It is EDGE_ADVERTISED_ADDRESS, else
 * the listen address EDGE_HTTP_ADDR, so listening on every interface needs it set.
 */
function unreachableAdvertisedAddress(advertised: string | undefined, listen: string): string | undefined {
  const fix = 'set EDGE_ADVERTISED_ADDRESS to the host:port clients reach the gateway at';
  if (advertised !== undefined) {
    return isUnspecifiedHost(hostOf(advertised)) ? `EDGE_ADVERTISED_ADDRESS: "${advertised}" names no host clients can reach; ${fix}` : undefined;
  }
  return isUnspecifiedHost(hostOf(listen))
    ? `EDGE_ADVERTISED_ADDRESS: unset, and EDGE_HTTP_ADDR "${listen}" listens on every address, which clients cannot be sent to; ${fix}`
    : undefined;
}

/** True for an origin exactly as a browser serializes it: scheme, host and non-default port, nothing else. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

/** The host of `host:port` or `[v6]:port`. */
function hostOf(address: string): string {
  const bracketed = /^\[([^\]]*)\]:\d+$/.exec(address);
  return bracketed ? bracketed[1]! : address.slice(0, address.lastIndexOf(':'));
}

/** True for an empty host and for the wildcard addresses 0.0.0.0 and :: in any spelling. */
function isUnspecifiedHost(host: string): boolean {
  if (host === '') return true;
  if (isIP(host) === 4) return host.split('.').every((octet) => Number(octet) === 0);
  if (isIP(host) === 6) return new URL(`http://[${host}]/`).hostname === '[::]';
  return false;
}

/** The address a service listens on: EDGE_GRPC_LISTEN_ADDR, else its own target address. */
export function grpcListenAddr(config: Config, service: ServiceName): string {
  return config.grpc.listenAddr ?? config.grpc.targets[service];
}

/** The Postgres schema a service owns. */
export function schemaName(config: Config, service: ServiceName): string {
  return `${config.database.schemaPrefix}${service}`;
}

/**
 * The gRPC contracts of the five services: runtime package definitions loaded from the .proto
 * files in `<repo>/proto`, and the TypeScript types generated from them (src/gen, git-ignored).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType as AuthProto } from './gen/auth.js';
import type { ProtoGrpcType as PkiProto } from './gen/pki.js';
import type { ProtoGrpcType as IdentityProto } from './gen/identity.js';
import type { ProtoGrpcType as PolicyProto } from './gen/policy.js';
import type { ProtoGrpcType as SessionProto } from './gen/session.js';
import type { ProtoGrpcType as HealthProto } from './gen/health.js';

export type * as auth from './gen/edge/auth/v1/index.js';
export type * as pki from './gen/edge/pki/v1/index.js';
export type * as identity from './gen/edge/identity/v1/index.js';
export type * as policy from './gen/edge/policy/v1/index.js';
export type * as session from './gen/edge/session/v1/index.js';
export type * as health from './gen/grpc/health/v1/index.js';
export type * as common from './gen/edge/common/v1/index.js';

/** Options shared by the loader and the type generator (libs/proto/scripts/gen.mjs). */
export const LOADER_OPTIONS: protoLoader.Options = { keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true };

/** The directory holding the .proto files: EDGE_PROTO_DIR, else `<repo>/proto`. */
export function protoDir(): string {
  if (process.env.EDGE_PROTO_DIR) return process.env.EDGE_PROTO_DIR;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'proto');
    if (existsSync(join(candidate, 'edge'))) return candidate;
    dir = dirname(dir);
  }
  throw new Error('cannot find the proto directory; set EDGE_PROTO_DIR');
}

const cache = new Map<string, unknown>();
function load<T>(file: string): T {
  let pkg = cache.get(file);
  if (!pkg) {
    const root = protoDir();
    const def = protoLoader.loadSync(file, { ...LOADER_OPTIONS, includeDirs: [root] });
    pkg = grpc.loadPackageDefinition(def);
    cache.set(file, pkg);
  }
  return pkg as T;
}

/** Service constructors (clients) and definitions (servers) of each contract. */
export const contracts = {
  auth: () => load<AuthProto>('edge/auth/v1/auth.proto').edge.auth.v1.AuthService,
  pki: () => load<PkiProto>('edge/pki/v1/pki.proto').edge.pki.v1.PkiService,
  identity: () => load<IdentityProto>('edge/identity/v1/identity.proto').edge.identity.v1.IdentityService,
  policy: () => load<PolicyProto>('edge/policy/v1/policy.proto').edge.policy.v1.PolicyService,
  session: () => load<SessionProto>('edge/session/v1/session.proto').edge.session.v1.SessionService,
  health: () => load<HealthProto>('grpc/health/v1/health.proto').grpc.health.v1.Health,
};

export type { AuthServiceClient, AuthServiceHandlers } from './gen/edge/auth/v1/AuthService.js';
export type { PkiServiceClient, PkiServiceHandlers } from './gen/edge/pki/v1/PkiService.js';
export type { IdentityServiceClient, IdentityServiceHandlers } from './gen/edge/identity/v1/IdentityService.js';
export type { PolicyServiceClient, PolicyServiceHandlers } from './gen/edge/policy/v1/PolicyService.js';
export type { SessionServiceClient, SessionServiceHandlers } from './gen/edge/session/v1/SessionService.js';
export type { HealthClient, HealthHandlers } from './gen/grpc/health/v1/Health.js';

export { stringMap } from './maps.js';
export { envInfoOf, sdkInfoOf, type EnvInfoFields, type SdkInfoFields } from './client-info.js';

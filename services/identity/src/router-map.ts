/**
 * proto ↔ domain for routers.
 */
import type { identity as pb } from '@edge/proto';
import type { Router, RouterInput } from './domain/router.js';
import { parseJson } from './map.js';

/** The domain input of a RouterFields message. */
export function routerFieldsToInput(f: pb.RouterFields__Output | null | undefined): RouterInput {
  const x = f ?? ({} as pb.RouterFields__Output);
  return {
    name: x.name ?? '',
    roleAttributes: x.roleAttributes ?? [],
    tags: parseJson('tags', x.tagsJson),
    appData: parseJson('appData', x.appDataJson),
    cost: x.cost ?? 0,
    noTraversal: x.noTraversal ?? false,
    disabled: x.disabled ?? false,
    isTunnelerEnabled: x.isTunnelerEnabled ?? false,
    ctrlChanListeners: parseJson('ctrlChanListeners', x.ctrlChanListenersJson),
    configs: x.configs ?? [],
  };
}

/** The Router message of a stored router. */
export function routerToProto(r: Router): pb.Router {
  return {
    id: r.id, kind: r.kind, name: r.name, roleAttributes: r.roleAttributes, tagsJson: JSON.stringify(r.tags), appDataJson: JSON.stringify(r.appData),
    cost: r.cost, noTraversal: r.noTraversal, disabled: r.disabled, isTunnelerEnabled: r.isTunnelerEnabled, isVerified: r.isVerified,
    fingerprint: r.fingerprint ?? undefined, certPem: r.certPem ?? undefined, unverifiedFingerprint: r.unverifiedFingerprint ?? undefined,
    unverifiedCertPem: r.unverifiedCertPem ?? undefined, hostname: r.hostname, supportedProtocolsJson: JSON.stringify(r.supportedProtocols),
    ctrlChanListenersJson: JSON.stringify(r.ctrlChanListeners), configs: r.configs, createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString(),
  };
}

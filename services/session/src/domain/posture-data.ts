/**
 * `GET /identities/{id}/posture-data`: an identity's posture data in the management spec's
 * `postureData` shape. OpenZiti keeps OS, domain, MAC and processes per identity and MFA and
 * endpoint state per API session (controller/model/posture_response_model.go); here every API
 * session keeps its own reports, so the identity-wide values are the newest report of each kind.
 */
import type { PostureData, Reported } from './posture.js';

/** Go's zero time, as OpenZiti renders a time never set. */
const ZERO_TIME = '0001-01-01T00:00:00.000Z';

/** What one API session reported, and when its record last changed. */
export interface SessionReports {
  apiSessionId: string;
  data: PostureData;
  updatedAt: Date;
}

/** A current API session of the identity, with when it passed MFA (if it did). */
export interface CurrentApiSession {
  id: string;
  mfaPassedAt?: Date;
}

const base = (r: Reported | undefined, fallback: Date) =>
  ({ postureCheckId: r?.postureCheckId ?? '', timedOut: false, lastUpdatedAt: r?.lastUpdatedAt ?? fallback.toISOString() });

/** The `postureData` document of an identity. */
export function identityPostureData(reports: readonly SessionReports[], apiSessions: readonly CurrentApiSession[]) {
  const never = new Date(ZERO_TIME);
  let os = { ...base(undefined, never), type: '', version: '', build: '' };
  let domain = { ...base(undefined, never), domain: '' };
  let mac = { ...base(undefined, never), addresses: [] as string[] };
  const processes = new Map<string, Record<string, unknown>>();
  // Oldest first, so the newest report of each kind wins.
  for (const { data: d, updatedAt } of [...reports].sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime())) {
    if (d.os) os = { ...base(d.reported?.OS, updatedAt), type: d.os.type, version: d.os.version, build: d.os.build ?? '' };
    if (d.domain !== undefined) domain = { ...base(d.reported?.DOMAIN, updatedAt), domain: d.domain };
    if (d.macAddresses) mac = { ...base(d.reported?.MAC, updatedAt), addresses: d.macAddresses };
    for (const p of d.processes ?? []) {
      processes.set(p.path, {
        ...base(p.postureCheckId === undefined ? undefined : { postureCheckId: p.postureCheckId, lastUpdatedAt: p.lastUpdatedAt ?? updatedAt.toISOString() }, updatedAt),
        path: p.path, isRunning: p.isRunning, binaryHash: p.hash ?? '', signerFingerprints: p.signerFingerprints ?? [],
      });
    }
  }
  const states = new Map(reports.map((r) => [r.apiSessionId, r.data.endpointState]));
  const apiSessionPostureData = Object.fromEntries(apiSessions.map((s) => {
    const state = states.get(s.id);
    return [s.id, {
      mfa: { apiSessionId: s.id, passedMfa: s.mfaPassedAt !== undefined, passedAt: s.mfaPassedAt?.toISOString() ?? ZERO_TIME, passedOnWake: false, passedOnUnlock: false },
      ...(state ? { endpointState: { wokenAt: state.wokenAt ?? ZERO_TIME, unlockedAt: state.unlockedAt ?? ZERO_TIME } } : {}),
    }];
  }));
  return { os, domain, mac, processes: [...processes.values()], apiSessionPostureData };
}

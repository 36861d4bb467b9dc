/**
 * Whether the controller's own CA issued a certificate: its holder may then extend it
 * (`isIssuedByNetwork`, set by controller/model/enrollment_mod_ott.go and checked against the
 * signing chain by controller/db/migration_v37.go). The controller chain belongs to the pki
 * service; it is asked once and kept, since the chain outlives any process.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@edge/logging';
import { issuedBy } from './domain/certificate.js';

/** Answers whether the controller's CA issued the leaf of a PEM chain. */
export type NetworkIssuer = (certPem: string) => Promise<boolean>;

/** Creates the check over a way to fetch the controller's CA chain (PEM). */
export function createNetworkIssuer(fetchChainPem: () => Promise<string>): NetworkIssuer {
  let chain: Promise<string> | undefined;
  return async (certPem) => {
    // a failed fetch is not kept: the next certificate asks again
    chain ??= fetchChainPem().catch((err: unknown) => {
      chain = undefined;
      throw err;
    });
    return issuedBy(certPem, await chain);
  };
}

/** What the backfill reads and writes. */
export interface IssuedByNetworkRows {
  undeterminedCertificates(limit: number): Promise<{ id: string; certPem: string }[]>;
  setIssuedByNetwork(id: string, issued: boolean): Promise<void>;
}

const BACKFILL_BATCH = 200;
const BACKFILL_RETRY_MS = 5_000;

/**
 * Decides `isIssuedByNetwork` for cert authenticators stored before it was recorded, retrying
 * while the pki service cannot be reached; resolves when none is left or `signal` aborts.
 * Replicas doing it at once write the same answers.
 */
export async function backfillIssuedByNetwork(rows: IssuedByNetworkRows, issuedByNetwork: NetworkIssuer, log: Logger, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    try {
      const batch = await rows.undeterminedCertificates(BACKFILL_BATCH);
      for (const r of batch) await rows.setIssuedByNetwork(r.id, await issuedByNetwork(r.certPem));
      if (batch.length < BACKFILL_BATCH) return;
    } catch (err) {
      if (signal.aborted) return;
      log.warn({ err }, 'could not yet tell which certificates the controller issued; retrying');
      await sleep(BACKFILL_RETRY_MS, undefined, { signal }).catch(() => undefined);
    }
  }
}

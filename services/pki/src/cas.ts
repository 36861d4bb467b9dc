/**
 * Certificate authority operations over the store: CRUD, verification, the static enrollment JWT,
 * and finding the trusted CA that issued a presented certificate. Every change is announced (the
 * store records its event with it), so gateways reload the CA bundle they trust and auth drops
 * what a deleted CA issued.
 */
import { fieldError, notFound } from '@edge/errors';
import { newId } from '@edge/ids';
import type { ListPlan } from '@edge/zitiql';
import type { ControllerPki } from './controller-pki.js';
import type { CaStore } from './store/ca.js';
import {
  applyCaUpdate, caJwtClaims, certificateNames, chainsTo, checkCaCertificate, checkCaInput, checkVerification, externalIdOf, fingerprintOf, newVerificationToken,
  pemCertificates, type Ca, type CaInput,
} from './domain/ca.js';
import { signEnrollmentJwt } from './domain/enrollment-jwt.js';

/** What the operations work with. */
export interface CaDeps {
  store: CaStore;
  pki: ControllerPki;
  advertisedAddress: string;
}

/** Which verified CA flag a use needs. */
export type CaUse = 'auth' | 'ottca' | 'ca';
const FLAG = { auth: 'is_auth_enabled', ottca: 'is_ott_ca_enrollment_enabled', ca: 'is_auto_ca_enrollment_enabled' } as const;

/** Creates the CA operations. */
export function createCas(deps: CaDeps) {
  const { store } = deps;

  async function get(id: string): Promise<Ca> {
    const found = await store.find(id);
    if (!found) throw notFound('ca', id);
    return found;
  }

  /** The verified CA enabled for `use` that issued the leaf of `chainPem`, if any. */
  async function issuerOf(chainPem: string, use: CaUse): Promise<Ca | undefined> {
    let chain;
    try {
      chain = pemCertificates(chainPem);
    } catch {
      return undefined;
    }
    if (chain.length === 0) return undefined;
    for (const ca of await store.verified(FLAG[use])) {
      const caCert = pemCertificates(ca.certPem)[0];
      if (caCert && chainsTo(chain, caCert)) return ca;
    }
    return undefined;
  }

  return {
    get,
    issuerOf,
    find: (id: string): Promise<Ca | undefined> => store.find(id),
    /** The verified CAs enabled for auto-enrollment. */
    autoEnrollmentCas: (): Promise<Ca[]> => store.verified(FLAG.ca),

    async create(input: CaInput): Promise<string> {
      const valid = checkCaInput(input);
      const { fingerprint } = checkCaCertificate(valid.certPem);
      // The controller signs session and identity certificates with any subject asked for: its
      // own chain as a third-party CA would let any session holder enroll or log in through it.
      const own = pemCertificates((await deps.pki.caCerts()).pem).map(fingerprintOf);
      if (own.includes(fingerprint)) throw fieldError('certPem', "is a certificate of this controller's own chain", null);
      const id = newId();
      await store.insert(id, valid, fingerprint, newVerificationToken());
      return id;
    },

    list(plan: ListPlan): Promise<{ items: Ca[]; total: number }> {
      return store.list(plan);
    },

    async update(id: string, next: CaInput, mask: readonly string[]): Promise<void> {
      const current = await get(id);
      const valid = checkCaInput(applyCaUpdate(current, next, mask));
      if (!(await store.update(id, valid))) throw notFound('ca', id);
    },

    async delete(id: string): Promise<void> {
      if (!(await store.delete(id))) throw notFound('ca', id);
    },

    /** Proof of possession: a certificate the CA signed whose CN is the verification token. */
    async verify(id: string, certPem: string): Promise<void> {
      checkVerification(await get(id), certPem);
      await store.markVerified(id);
    },

    /** The CA's static enrollment JWT, signed with the listener's key like every enrollment JWT. */
    async jwt(id: string): Promise<string> {
      const ca = await get(id);
      const { server } = await deps.pki.enrollmentSigners();
      return signEnrollmentJwt(server, caJwtClaims(ca.id, deps.advertisedAddress));
    },

    /** The certificates of the verified CAs enabled for authentication, for the TLS bundle. */
    async trustedPem(): Promise<string> {
      return (await store.verified(FLAG.auth)).map((ca) => pemCertificates(ca.certPem)[0]!.toString()).join('');
    },

    /** The auth-enabled CA that issued a presented chain and the externalId its claim reads. */
    async matchCertificate(chainPem: string): Promise<{ caId: string; externalId: string }> {
      const ca = await issuerOf(chainPem, 'auth');
      if (!ca) return { caId: '', externalId: '' };
      const leaf = pemCertificates(chainPem)[0]!;
      return { caId: ca.id, externalId: ca.externalIdClaim ? externalIdOf(ca.externalIdClaim, certificateNames(leaf)) : '' };
    },
  };
}

export type Cas = ReturnType<typeof createCas>;

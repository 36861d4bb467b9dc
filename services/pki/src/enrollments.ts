/**
 * Enrollment operations over the store: create, read, refresh and delete, with the token hashed
 * and the JWT sealed under the key-encryption key at rest. Redeeming lives in redeem.ts.
 */
import { decodeJwt } from 'jose';
import { ZitiError, fieldError, isZitiError, notFound } from '@edge/errors';
import { newId } from '@edge/ids';
import { decryptKey, encryptKey } from '@edge/key-encryption';
import type { ControllerPki } from './controller-pki.js';
import {
  caNotFound, enrollmentClaims, expiryOf, hashEnrollmentToken, IDENTITY_METHODS, newEnrollmentToken, validateEnrollmentRequest,
  type Enrollment, type EnrollmentMethod, type EnrollmentRequest, type ValidEnrollmentRequest,
} from './domain/enrollment.js';
import { signEnrollmentJwt } from './domain/enrollment-jwt.js';
import type { EnrollmentStore, StoredEnrollment } from './store/enrollment.js';
import type { EnrollmentPeers } from './peers/index.js';

/** What the operations work with. */
export interface EnrollmentDeps {
  store: EnrollmentStore;
  pki: ControllerPki;
  peers: EnrollmentPeers;
  kek: Buffer;
  advertisedAddress: string;
  durationMinutes: number;
  /** Whether a CA exists (an ottca enrollment names one). */
  caExists(id: string): Promise<boolean>;
}

/** Binds each sealed JWT to its row, so ciphertexts cannot be swapped between enrollments. */
const aad = (id: string) => `edge.pki.enrollments:${id}`;

/** Creates the enrollment operations. */
export function createEnrollments(deps: EnrollmentDeps) {
  const { store, pki, kek } = deps;

  /** A fresh token, its JWT (signed with the listener's key) and the sealed form to store. */
  async function issueToken(id: string, e: Pick<Enrollment, 'method' | 'expiresAt' | 'identityId' | 'edgeRouterId' | 'transitRouterId'>) {
    const token = newEnrollmentToken();
    const { server } = await pki.enrollmentSigners();
    const jwt = await signEnrollmentJwt(server, enrollmentClaims({ ...e, token }, deps.advertisedAddress));
    return { tokenHash: hashEnrollmentToken(token), jwtEncrypted: encryptKey(jwt, kek, aad(id)), issuedAt: new Date(), expiresAt: e.expiresAt };
  }

  /** The stored row with its JWT opened and the token read back out of it (its jti). */
  function open(s: StoredEnrollment): Enrollment {
    const jwt = decryptKey(s.jwtEncrypted, kek, aad(s.id));
    const token = String(decodeJwt(jwt).jti ?? '');
    const { tokenHash: _hash, jwtEncrypted: _sealed, ...rest } = s;
    return { ...rest, token, jwt };
  }

  async function insert(valid: ValidEnrollmentRequest): Promise<Enrollment> {
    const id = newId();
    const issued = await issueToken(id, valid);
    return open(await store.insert({ id, ...valid, ...issued }));
  }

  async function get(id: string): Promise<StoredEnrollment> {
    const found = await store.find(id);
    if (!found) throw notFound('enrollment', id);
    return found;
  }

  /**
   * Creates an enrollment for an identity (ott, updb, ottca with an existing CA) or a router;
   * ENROLLMENT_EXISTS when the identity has one of that method outstanding, or, `ifAbsent`, that
   * one (an identity's creator and the consumer of its created event may both make it: exactly
   * one results).
   */
  async function create(req: EnrollmentRequest, opts: { ifAbsent?: boolean } = {}): Promise<Enrollment> {
    const valid = validateEnrollmentRequest(req, deps.durationMinutes);
    const existing = async () => (opts.ifAbsent && valid.identityId !== null ? store.findOf(valid.identityId, valid.method) : undefined);
    const found = await existing();
    if (found) return open(found);
    if (valid.identityId !== null) {
      if (!(await deps.peers.identityExists(valid.identityId))) {
        throw new ZitiError('REFERENCED_ENTITY_NOT_FOUND', { cause: { field: 'identityId', reason: 'identity not found', value: valid.identityId }, causeMessage: `identity ${valid.identityId} not found` });
      }
      if (valid.caId !== null && !(await deps.caExists(valid.caId))) throw caNotFound(valid.caId);
    }
    try {
      return await insert(valid);
    } catch (err) {
      // Made by the other one meanwhile: the unique (identity, method) index let one through.
      const raced = isZitiError(err) && err.code === 'ENROLLMENT_EXISTS' ? await existing() : undefined;
      if (raced) return open(raced);
      throw err;
    }
  }

  return {
    open,

    create,

    /**
     * Makes an enrollment a new identity was created with (from its created event), unless it
     * has one of that method or already completed one (its authenticator exists: the token was
     * redeemed before this event was handled). What happened; a refused ask throws as `create`.
     */
    async createAsked(identityId: string, ask: { method: string; caId?: string; username?: string }): Promise<'created' | 'exists' | 'completed'> {
      if (!IDENTITY_METHODS.includes(ask.method as EnrollmentMethod)) throw fieldError('method', 'must be one of ott, ottca, updb', ask.method);
      if (await store.findOf(identityId, ask.method as EnrollmentMethod)) return 'exists';
      const has = await deps.peers.authenticatorsOf(identityId);
      if (ask.method === 'updb' ? has.updb : has.cert) return 'completed';
      try {
        await create({ method: ask.method, identityId, caId: ask.caId, username: ask.username });
        return 'created';
      } catch (err) {
        if (isZitiError(err) && err.code === 'ENROLLMENT_EXISTS') return 'exists';
        throw err;
      }
    },

    async get(id: string): Promise<Enrollment> {
      return open(await get(id));
    },

    async list(plan: Parameters<EnrollmentStore['list']>[0]): Promise<{ items: Enrollment[]; total: number }> {
      const { items, total } = await store.list(plan);
      return { items: items.map(open), total };
    },

    async of(owners: Parameters<EnrollmentStore['of']>[0]): Promise<Enrollment[]> {
      return (await store.of(owners)).map(open);
    },

    async delete(id: string): Promise<void> {
      if (!(await store.delete(id))) throw notFound('enrollment', id);
    },

    /** A new token, JWT and expiry (required for identity methods); the old token stops working. */
    async refresh(id: string, expiresAt: string): Promise<Enrollment> {
      const current = await get(id);
      if (expiresAt === '' && IDENTITY_METHODS.includes(current.method)) throw new ZitiError('COULD_NOT_VALIDATE', { cause: { field: 'expiresAt', reason: 'is required' }, causeMessage: 'expiresAt: is required' });
      const issued = await issueToken(id, { ...current, expiresAt: expiryOf(expiresAt, deps.durationMinutes) });
      const updated = await store.replaceToken(id, issued);
      if (!updated) throw notFound('enrollment', id);
      return open(updated);
    },

    /** Drops a router's enrollments and issues a new one (router create, re-enroll). */
    async replaceRouterEnrollment(kind: string, routerId: string): Promise<Enrollment> {
      const owner = kind === 'transit' ? { transitRouterId: routerId } : { edgeRouterId: routerId };
      const valid = validateEnrollmentRequest({ method: kind === 'transit' ? 'trott' : 'erott', ...owner }, deps.durationMinutes);
      await store.deleteOf(owner);
      return insert(valid);
    },
  };
}

export type Enrollments = ReturnType<typeof createEnrollments>;

/**
 * Every query on enrollments. Tokens are stored as hashes and JWTs sealed; the store hands
 * rows out sealed and the caller opens them (enrollments.ts), so nothing here sees a secret.
 * Every write announces the enrollments it created, refreshed or deleted in its transaction.
 */
import { sql, type DeleteQueryBuilder, type DeleteResult, type Selectable } from 'kysely';
import { isUniqueViolation, precompiled } from '@edge/db';
import { entityFields, field, runList, type FieldMap, type ListPlan } from '@edge/zitiql';
import { enrollmentExists, type Enrollment } from '../domain/enrollment.js';
import type { PkiEvents } from '../events.js';
import type { EnrollmentsTable, PkiDb, PkiKysely } from './db.js';

/** An enrollment as stored: the token only as its hash, the JWT sealed. */
export interface StoredEnrollment extends Omit<Enrollment, 'token' | 'jwt'> {
  tokenHash: string;
  jwtEncrypted: string;
}

/** A new enrollment row. */
export type NewEnrollment = Omit<StoredEnrollment, 'tags' | 'createdAt' | 'updatedAt'>;

/**
 * What a filter on `/enrollments` may read (the names of OpenZiti's enrollment store). The token
 * is not filterable: only its hash is kept.
 */
export const ENROLLMENT_FIELDS: FieldMap = {
  ...entityFields(),
  method: field.string('method'),
  identity: field.string('identity_id', { nullable: true }),
  identityId: field.string('identity_id', { nullable: true }),
  edgeRouter: field.string('edge_router_id', { nullable: true }),
  edgeRouterId: field.string('edge_router_id', { nullable: true }),
  transitRouter: field.string('transit_router_id', { nullable: true }),
  transitRouterId: field.string('transit_router_id', { nullable: true }),
  ca: field.string('ca_id', { nullable: true }),
  caId: field.string('ca_id', { nullable: true }),
  username: field.string('username', { nullable: true }),
  issuedAt: field.datetime('issued_at'),
  expiresAt: field.datetime('expires_at'),
};

type EnrollmentDelete = DeleteQueryBuilder<PkiDb, 'enrollments', DeleteResult>;

function toStored(r: Selectable<EnrollmentsTable>): StoredEnrollment {
  return {
    id: r.id, method: r.method, identityId: r.identity_id, edgeRouterId: r.edge_router_id, transitRouterId: r.transit_router_id,
    caId: r.ca_id, username: r.username, tokenHash: r.token_hash, jwtEncrypted: r.jwt_encrypted, issuedAt: r.issued_at,
    expiresAt: r.expires_at, tags: r.tags, createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

function toRow(e: NewEnrollment) {
  return {
    id: e.id, method: e.method, identity_id: e.identityId, edge_router_id: e.edgeRouterId, transit_router_id: e.transitRouterId,
    ca_id: e.caId, username: e.username, token_hash: e.tokenHash, jwt_encrypted: e.jwtEncrypted, issued_at: e.issuedAt, expires_at: e.expiresAt,
  };
}

/** Creates the enrollment store over the pki schema; every write records its events through `events`. */
export function createEnrollmentStore(db: PkiKysely, events: PkiEvents) {
  /** The enrollments of identities (every page of the identity list reads them): compiled once, kept prepared. */
  const ofIdentities = precompiled(1, (ids: string[]) => db.selectFrom('enrollments').selectAll()
    .where(sql<boolean>`identity_id = any(${ids}::text[])`).orderBy('created_at').orderBy('id'));
  /** Deletes the enrollments `where` picks, announcing each; those this call deleted. */
  const deleteWhere = (where: (q: EnrollmentDelete) => EnrollmentDelete): Promise<StoredEnrollment[]> => events.transaction(async (trx) => {
    const rows = (await where(trx.deleteFrom('enrollments')).returningAll().execute()).map(toStored);
    await events.enrollmentsChanged(trx, 'deleted', rows);
    return rows;
  });
  const store = {
    /** Inserts; ENROLLMENT_EXISTS when the owner already has one of this method. */
    async insert(e: NewEnrollment): Promise<StoredEnrollment> {
      try {
        return await events.transaction(async (trx) => {
          const row = toStored(await trx.insertInto('enrollments').values(toRow(e)).returningAll().executeTakeFirstOrThrow());
          await events.enrollmentsChanged(trx, 'created', [row]);
          return row;
        });
      } catch (err) {
        if (isUniqueViolation(err)?.constraint?.startsWith('enrollments_') && !isUniqueViolation(err)?.constraint?.includes('token')) throw enrollmentExists(e.method);
        throw err;
      }
    },

    async find(id: string): Promise<StoredEnrollment | undefined> {
      const row = await db.selectFrom('enrollments').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toStored(row);
    },

    /** The identity's enrollment of this method, if it has one (there is one at most). */
    async findOf(identityId: string, method: Enrollment['method']): Promise<StoredEnrollment | undefined> {
      const row = await db.selectFrom('enrollments').selectAll().where('identity_id', '=', identityId).where('method', '=', method).executeTakeFirst();
      return row && toStored(row);
    },

    async findByTokenHash(tokenHash: string): Promise<StoredEnrollment | undefined> {
      const row = await db.selectFrom('enrollments').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row && toStored(row);
    },

    async list(plan: ListPlan): Promise<{ items: StoredEnrollment[]; total: number }> {
      const { rows, total } = await runList(db.selectFrom('enrollments'), plan, (qb) => qb.selectAll());
      return { items: (rows as Selectable<EnrollmentsTable>[]).map(toStored), total };
    },

    /** The enrollments of any of these owners. */
    async of(owners: { identityIds: string[]; edgeRouterIds: string[]; transitRouterIds: string[] }): Promise<StoredEnrollment[]> {
      const { identityIds, edgeRouterIds, transitRouterIds } = owners;
      if (identityIds.length + edgeRouterIds.length + transitRouterIds.length === 0) return [];
      if (edgeRouterIds.length + transitRouterIds.length === 0) return (await ofIdentities(db, identityIds)).map(toStored);
      const rows = await db.selectFrom('enrollments').selectAll().where((eb) => eb.or([
        ...(identityIds.length ? [eb('identity_id', 'in', identityIds)] : []),
        ...(edgeRouterIds.length ? [eb('edge_router_id', 'in', edgeRouterIds)] : []),
        ...(transitRouterIds.length ? [eb('transit_router_id', 'in', transitRouterIds)] : []),
      ])).orderBy('created_at').orderBy('id').execute();
      return rows.map(toStored);
    },

    /** Replaces token, JWT and expiry (refresh); undefined when the enrollment is gone. */
    async replaceToken(id: string, t: Pick<StoredEnrollment, 'tokenHash' | 'jwtEncrypted' | 'issuedAt' | 'expiresAt'>): Promise<StoredEnrollment | undefined> {
      return events.transaction(async (trx) => {
        const rows = (await trx.updateTable('enrollments')
          .set({ token_hash: t.tokenHash, jwt_encrypted: t.jwtEncrypted, issued_at: t.issuedAt, expires_at: t.expiresAt, updated_at: sql<Date>`date_trunc('milliseconds', now())` })
          .where('id', '=', id).returningAll().execute()).map(toStored);
        await events.enrollmentsChanged(trx, 'updated', rows);
        return rows[0];
      });
    },

    /** Deletes one; the row when this call deleted it. */
    async delete(id: string): Promise<StoredEnrollment | undefined> {
      return (await deleteWhere((q) => q.where('id', '=', id)))[0];
    },

    /** Deletes every enrollment of an identity or router (idempotent); how many went. */
    async deleteOf(owner: { identityId?: string; edgeRouterId?: string; transitRouterId?: string }): Promise<number> {
      const { identityId, edgeRouterId, transitRouterId } = owner;
      if (!identityId && !edgeRouterId && !transitRouterId) return 0;
      return (await deleteWhere((q) => {
        if (identityId) return q.where('identity_id', '=', identityId);
        if (edgeRouterId) return q.where('edge_router_id', '=', edgeRouterId);
        return q.where('transit_router_id', '=', transitRouterId!);
      })).length;
    },

    /** The distinct owners (identity and router ids) with enrollments, for the start-up sweep. */
    async owners(): Promise<{ identityIds: string[]; edgeRouterIds: string[]; transitRouterIds: string[] }> {
      const rows = await db.selectFrom('enrollments').select(['identity_id', 'edge_router_id', 'transit_router_id']).distinct().execute();
      const pick = (k: 'identity_id' | 'edge_router_id' | 'transit_router_id') => rows.map((r) => r[k]).filter((v): v is string => v !== null);
      return { identityIds: pick('identity_id'), edgeRouterIds: pick('edge_router_id'), transitRouterIds: pick('transit_router_id') };
    },

    /**
     * Claims a token for redemption: deletes its enrollment in one statement and returns it, so
     * of concurrent redemptions only one gets the row. No transaction stays open while the
     * caller does the remote work (ARCHITECTURE.md rule 7); it `restore`s the row if that fails.
     */
    async claim(tokenHash: string): Promise<StoredEnrollment | undefined> {
      return (await deleteWhere((q) => q.where('token_hash', '=', tokenHash)))[0];
    },

    /**
     * Puts back a claimed enrollment whose redemption failed, as it was, so its token stays
     * usable; false when its owner got a new enrollment of that method meanwhile (that one stays).
     */
    async restore(e: StoredEnrollment): Promise<boolean> {
      return events.transaction(async (trx) => {
        const rows = (await trx.insertInto('enrollments')
          .values({ ...toRow(e), tags: JSON.stringify(e.tags), created_at: e.createdAt, updated_at: e.updatedAt })
          .onConflict((oc) => oc.doNothing()).returningAll().execute()).map(toStored);
        await events.enrollmentsChanged(trx, 'created', rows);
        return rows.length > 0;
      });
    },
  };
  return store;
}

export type EnrollmentStore = ReturnType<typeof createEnrollmentStore>;

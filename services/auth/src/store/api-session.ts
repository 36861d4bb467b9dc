/**
 * The API session queries of the auth service, with the authenticator look-ups login needs and
 * what spans an identity's authenticators, API sessions and MFA; row ↔ domain mappers.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import { isUniqueViolation, precompiled } from '@edge/db';
import { createBatcher } from '@edge/rpc';
import type { IdentityOwnedEvent } from '@edge/events';
import { entityFields, field, runList, type FieldMap, type ListPlan } from '@edge/zitiql';
import type { ApiSession, ApiSessionRef } from '../domain/api-session.js';
import type { AuthEvents } from '../events.js';
import type { Authenticator, IdentityAuthSummary } from '../domain/authenticator.js';
import type { AuthPolicy } from '../domain/auth-policy.js';
import type { ApiSessionsTable, AuthDb, AuthenticatorsTable } from './db.js';
import { identityAndPolicyOf, withIdentityAndPolicy } from './identity-and-policy.js';
import type { ModelLookup } from './identity-model.js';

/** What a filter on `/api-sessions` may read. */
export const API_SESSION_FIELDS: FieldMap = {
  ...entityFields(),
  identity: field.string('identity_id'),
  identityId: field.string('identity_id'),
  authenticatorId: field.string('authenticator_id'),
  ipAddress: field.string('ip_address'),
  isMfaRequired: field.bool('is_mfa_required'),
  isMfaComplete: field.bool('is_mfa_complete'),
  lastActivityAt: field.datetime('last_activity_at'),
  configTypes: field.set('config_types'),
};

/** A new updb authenticator. */
export interface NewUpdbAuthenticator {
  id: string;
  identityId: string;
  username: string;
  passwordHash: string;
}

/** An authenticator a completed enrollment creates. */
export type NewEnrolledAuthenticator = Pick<Authenticator, 'id' | 'identityId' | 'method' | 'username' | 'passwordHash' | 'fingerprint' | 'certPem' | 'isIssuedByNetwork'>;

/** A new API session; timestamps default to now. */
export type NewApiSession = Omit<ApiSession, 'tags' | 'createdAt' | 'updatedAt'>;

/** The auth service's data access. */
export type AuthStore = ReturnType<typeof createStore>;

export function toAuthenticator(row: Selectable<AuthenticatorsTable>): Authenticator {
  return {
    id: row.id,
    identityId: row.identity_id,
    method: row.method,
    username: row.username ?? undefined,
    passwordHash: row.password_hash ?? undefined,
    fingerprint: row.fingerprint ?? undefined,
    certPem: row.cert_pem ?? undefined,
    extendRequest: row.extend_requested_at ? { at: row.extend_requested_at, rollKeys: row.is_key_roll_requested } : undefined,
    isIssuedByNetwork: row.method === 'cert' ? row.is_issued_by_network ?? false : undefined,
    tags: row.tags,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The `{id, identityId}` of rows a statement returned, as events name them. */
export function owned(rows: ReadonlyArray<{ id: string; identity_id: string }>): IdentityOwnedEvent[] {
  return rows.map((r) => ({ id: r.id, identityId: r.identity_id }));
}

function toApiSession(row: Selectable<ApiSessionsTable>): ApiSession {
  return {
    id: row.id,
    tokenHash: row.token_hash,
    identityId: row.identity_id,
    authenticatorId: row.authenticator_id,
    configTypes: row.config_types,
    ipAddress: row.ip_address,
    isMfaRequired: row.is_mfa_required,
    isMfaComplete: row.is_mfa_complete,
    isCertExtendable: row.is_cert_extendable,
    lastActivityAt: row.last_activity_at,
    tags: row.tags,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The columns a login gives a new API session (the others take their defaults). */
const INSERTED = ['id', 'token_hash', 'identity_id', 'authenticator_id', 'config_types', 'ip_address', 'is_mfa_required', 'is_mfa_complete', 'is_cert_extendable', 'last_activity_at'] as const;
type InsertedColumn = typeof INSERTED[number];

/**
 * An API session found by its token, with its identity as the read model holds it and that
 * identity's auth policy (undefined unless the model holds the identity).
 */
export interface ValidationRead {
  session: ApiSession;
  identity: ModelLookup;
  policy: AuthPolicy | undefined;
}

/** Creates the store over a Kysely bound to the auth schema; an API session's end is announced in its transaction. */
export function createStore(db: Kysely<AuthDb>, events: AuthEvents) {
  const refs = (rows: Array<{ id: string; identity_id: string }>): ApiSessionRef[] => owned(rows);
  /** The authentication summaries of the identities of `ids` (every page of the identity list reads them): compiled once, kept prepared. */
  const summaries = precompiled(1, (ids: string[]) => {
    const id = sql.ref<string>('ids.ids');
    return db.selectFrom(sql<{ ids: string }>`unnest(${ids}::text[])`.as('ids'))
      .leftJoin('authenticators as u', (j) => j.on('u.identity_id', '=', id).on('u.method', '=', 'updb'))
      .leftJoin('authenticators as c', (j) => j.on('c.identity_id', '=', id).on('c.method', '=', 'cert'))
      .select((eb) => [
        id.as('identityId'), 'u.id as updbId', 'u.username as updbUsername', 'c.id as certId', 'c.fingerprint as certFingerprint',
        // `offset 0` keeps each look-up a probe of the identity_id index per identity asked
        // for, where the planner would otherwise hash every API session (or MFA) of the table.
        eb.exists(eb.selectFrom('api_sessions as s').select('s.id').where('s.identity_id', '=', id).offset(0)).as('hasApiSession'),
        eb.exists(eb.selectFrom('mfas as m').select('m.id').where('m.identity_id', '=', id).where('m.is_verified', '=', true).offset(0)).as('isMfaEnabled'),
      ]);
  });

  // Login's statements, compiled once and kept prepared: building them cost the auth service
  // more than the database spends on them.
  const updbByUsername = precompiled(1, (username: string) => db.selectFrom('authenticators').selectAll()
    .where('method', '=', 'updb').where('username', '=', username));
  /**
   * A new API session (its columns' values in {@link INSERTED} order) stored only beside another
   * session of the identity, which the statement keeps from ending (a key share lock) until it
   * commits: a deletion of that one committed first leaves none to stand beside, and the login
   * is then stored and announced in a transaction; one after it sees this. No row when none.
   */
  const insertBesideAnother = precompiled(INSERTED.length, (...values: unknown[]) => {
    // Each value one bound parameter; the identity's also picks the session to stand beside.
    const value = (column: InsertedColumn) => sql`${values[INSERTED.indexOf(column)]}`;
    return db.insertInto('api_sessions').columns([...INSERTED])
      .expression(db.selectFrom(db.selectFrom('api_sessions').select('id').where('identity_id', '=', value('identity_id') as never).limit(1).forKeyShare().as('other'))
        .select(INSERTED.map((column) => value(column).as(column))))
      .returningAll();
  });

  /**
   * The API sessions of these token hashes, each with its identity as the read model holds it and
   * that identity's auth policy: what validations read (every gateway replica asks for each token
   * in use once a minute), for all the validations of a batch at once.
   */
  const byTokenHashes = precompiled(1, (tokenHashes: string[]) => withIdentityAndPolicy(db.selectFrom('api_sessions as s').selectAll('s')
    .where(sql<boolean>`s.token_hash = any(${tokenHashes}::text[])`), 's.identity_id'));

  const summariesOf = async (identityIds: readonly string[]): Promise<IdentityAuthSummary[]> => {
    const ids = [...new Set(identityIds)];
    if (ids.length === 0) return [];
    const rows = await summaries(db, ids);
    return rows.map((r) => ({
      identityId: r.identityId,
      updb: r.updbId ? { id: r.updbId, username: r.updbUsername ?? '' } : undefined,
      cert: r.certId ? { id: r.certId, fingerprint: r.certFingerprint ?? '' } : undefined,
      hasApiSession: Boolean(r.hasApiSession),
      isMfaEnabled: Boolean(r.isMfaEnabled),
    }));
  };

  // A validation's three statements, shared by the validations arriving together (createBatcher):
  // a gateway validates each token in use again once a minute, and the tokens of clients that
  // logged in together come due together.
  const validationReads = createBatcher(async (tokenHashes: string[]): Promise<Array<ValidationRead | undefined>> => {
    const rows = await byTokenHashes(db, [...new Set(tokenHashes)]) as Array<Selectable<ApiSessionsTable> & Record<string, unknown>>;
    const byHash = new Map(rows.map((row) => [row.token_hash, row]));
    return tokenHashes.map((hash) => {
      const row = byHash.get(hash);
      return row && { session: toApiSession(row), ...identityAndPolicyOf(row) };
    });
  });
  const summaryReads = createBatcher(async (identityIds: string[]): Promise<Array<IdentityAuthSummary | Error>> => {
    const byId = new Map((await summariesOf(identityIds)).map((s) => [s.identityId, s]));
    return identityIds.map((id) => byId.get(id) ?? new Error(`no authentication summary of identity ${id}`));
  });
  /** Activity of many sessions in one statement: the latest time asked, where none was recorded since the earliest bound asked. */
  const touches = createBatcher(async (asks: Array<{ id: string; at: Date; olderThan: Date }>): Promise<undefined[]> => {
    const at = new Date(Math.max(...asks.map((a) => a.at.getTime())));
    const olderThan = new Date(Math.min(...asks.map((a) => a.olderThan.getTime())));
    await db.updateTable('api_sessions').set({ last_activity_at: at })
      .where(sql<boolean>`id = any(${[...new Set(asks.map((a) => a.id))]}::text[])`).where('last_activity_at', '<', olderThan).execute();
    return asks.map(() => undefined);
  });

  /** A new API session (its columns' values in {@link INSERTED} order), in the caller's transaction. */
  const insertAlone = precompiled(INSERTED.length, (...values: unknown[]) => db.insertInto('api_sessions')
    .values(Object.fromEntries(INSERTED.map((column, i) => [column, values[i]])) as never).returningAll());

  return {
    /** The updb authenticator with this username, if any. */
    async findUpdbByUsername(username: string): Promise<Authenticator | undefined> {
      const [row] = await updbByUsername(db, username);
      return row && toAuthenticator(row);
    },

    /**
     * Inserts a updb authenticator unless its username is taken or its identity already has
     * one; true when this call inserted it (so replicas starting together can tell which one
     * created the default admin). Either unique key may be the one a concurrent insert hits
     * first, so the conflict names no target.
     */
    async insertUpdbIfAbsent(a: NewUpdbAuthenticator): Promise<boolean> {
      return events.transaction(async (trx) => {
        const rows = await trx.insertInto('authenticators')
          .values({ id: a.id, identity_id: a.identityId, method: 'updb', username: a.username, password_hash: a.passwordHash })
          .onConflict((oc) => oc.doNothing())
          .returning(['id', 'identity_id'])
          .execute();
        await events.authenticatorsChanged(trx, 'created', owned(rows));
        return rows.length > 0;
      });
    },

    /** The cert authenticator with this fingerprint, if any. */
    async findCertByFingerprint(fingerprint: string): Promise<Authenticator | undefined> {
      const row = await db.selectFrom('authenticators').selectAll()
        .where('method', '=', 'cert').where('fingerprint', '=', fingerprint)
        .executeTakeFirst();
      return row && toAuthenticator(row);
    },

    /**
     * Inserts an authenticator an enrollment created; 'duplicate' when its unique key (username
     * or fingerprint) is taken, 'enrolled' when the identity has one of the method already.
     */
    async insertEnrolled(a: NewEnrolledAuthenticator): Promise<'inserted' | 'duplicate' | 'enrolled'> {
      try {
        await events.transaction(async (trx) => {
          await trx.insertInto('authenticators').values({
            id: a.id, identity_id: a.identityId, method: a.method, username: a.username ?? null, password_hash: a.passwordHash ?? null,
            fingerprint: a.fingerprint ?? null, cert_pem: a.certPem ?? null, is_issued_by_network: a.method === 'cert' ? a.isIssuedByNetwork ?? false : null,
          }).execute();
          await events.authenticatorsChanged(trx, 'created', [a]);
        });
        return 'inserted';
      } catch (err) {
        const v = isUniqueViolation(err);
        if (v) return v.constraint?.includes('identity_method') ? 'enrolled' : 'duplicate';
        throw err;
      }
    },

    /** Every authenticator of these identities. */
    async authenticatorsOf(identityIds: string[]): Promise<Authenticator[]> {
      if (identityIds.length === 0) return [];
      const rows = await db.selectFrom('authenticators').selectAll()
        .where('identity_id', 'in', identityIds).orderBy('created_at').execute();
      return rows.map(toAuthenticator);
    },

    /** Every identity id the auth schema refers to (authenticators, API sessions, MFA). */
    async referencedIdentityIds(): Promise<string[]> {
      const rows = await db.selectFrom('authenticators').select('identity_id').distinct()
        .union(db.selectFrom('api_sessions').select('identity_id').distinct())
        .union(db.selectFrom('mfas').select('identity_id').distinct())
        .execute();
      return rows.map((r) => r.identity_id);
    },

    /**
     * The first `limit` identity ids after `after` (in id order) that the auth schema refers to:
     * a bounded page of the reconciliation, each table read through its identity index.
     */
    async referencedIdentityIdsAfter(after: string, limit: number): Promise<string[]> {
      const page = (table: 'authenticators' | 'api_sessions' | 'mfas') => db.selectFrom(table).select('identity_id').distinct()
        .where('identity_id', '>', after).orderBy('identity_id').limit(limit).execute();
      const rows = (await Promise.all([page('authenticators'), page('api_sessions'), page('mfas')])).flat();
      return [...new Set(rows.map((r) => r.identity_id))].sort().slice(0, limit);
    },

    /**
     * How each of these identities can authenticate, in one statement: its password and
     * certificate authenticators (one of each at most), and whether it has an API session and a
     * verified MFA enrollment. One summary per distinct id, in no particular order.
     */
    async authSummariesOf(identityIds: readonly string[]): Promise<IdentityAuthSummary[]> {
      return summariesOf(identityIds);
    },

    /** One identity's summary (see authSummariesOf), read with those asked for at the same time. */
    async authSummaryOf(identityId: string): Promise<IdentityAuthSummary> {
      return summaryReads(identityId);
    },

    /** Which of these identities have at least one API session. */
    async identitiesWithApiSessions(identityIds: string[]): Promise<Set<string>> {
      if (identityIds.length === 0) return new Set();
      const rows = await db.selectFrom('api_sessions').select('identity_id').distinct()
        .where('identity_id', 'in', identityIds).execute();
      return new Set(rows.map((r) => r.identity_id));
    },

    /**
     * Opens an API session. It is announced, with the environment the client reported (empty
     * strings when none) for the identity service to record, when that changes something others
     * know: the client reported an environment, or the identity had no API session before (it
     * now has one, `hasApiSession`). A further session of an identity that reported nothing is
     * stored alone, without the transaction, event and relay a login would otherwise wait for.
     */
    async insertApiSession(s: NewApiSession, env: { envInfoJson: string; sdkInfoJson: string } = { envInfoJson: '', sdkInfoJson: '' }): Promise<ApiSession> {
      const values = {
        id: s.id, token_hash: s.tokenHash, identity_id: s.identityId, authenticator_id: s.authenticatorId,
        config_types: s.configTypes, ip_address: s.ipAddress, is_mfa_required: s.isMfaRequired,
        is_mfa_complete: s.isMfaComplete, is_cert_extendable: s.isCertExtendable, last_activity_at: s.lastActivityAt,
      } satisfies Record<InsertedColumn, unknown>;
      if (env.envInfoJson === '' && env.sdkInfoJson === '') {
        const [row] = await insertBesideAnother(db, ...INSERTED.map((column) => values[column]));
        if (row) return toApiSession(row);
      }
      return events.transaction(async (trx) => {
        const [row] = await insertAlone(trx, ...INSERTED.map((column) => values[column]));
        if (!row) throw new Error('an API session insert returned no row');
        await events.apiSessionCreated(trx, { id: row.id, identityId: row.identity_id }, env);
        return toApiSession(row);
      });
    },

    /**
     * The API session whose token has this hash, with its identity and policy, if any: one
     * statement, shared with the look-ups made at the same time.
     */
    async findApiSessionByTokenHash(tokenHash: string): Promise<ValidationRead | undefined> {
      return validationReads(tokenHash);
    },

    /** A page of API sessions under a list plan. */
    async listApiSessions(plan: ListPlan): Promise<{ items: ApiSession[]; total: number }> {
      const { rows, total } = await runList(db.selectFrom('api_sessions'), plan, (qb) => qb.selectAll());
      return { items: (rows as Selectable<ApiSessionsTable>[]).map(toApiSession), total };
    },

    /** The API session with this id, if any. */
    async findApiSession(id: string): Promise<ApiSession | undefined> {
      const row = await db.selectFrom('api_sessions').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toApiSession(row);
    },

    /**
     * Records activity, unless the stored value is already newer than `olderThan` (another
     * request or replica wrote it meanwhile); no row is locked for longer than the update.
     */
    async touchApiSession(id: string, at: Date, olderThan: Date): Promise<void> {
      await touches({ id, at, olderThan });
    },

    /** Deletes one API session; the reference when this call deleted it (and announced its end). */
    async deleteApiSession(id: string): Promise<ApiSessionRef | undefined> {
      return events.transaction(async (trx) => {
        const ended = refs(await trx.deleteFrom('api_sessions').where('id', '=', id).returning(['id', 'identity_id']).execute());
        await events.apiSessionsDeleted(trx, ended);
        return ended[0];
      });
    },

    /**
     * Deletes up to `limit` sessions idle since before `cutoff`; returns those this call
     * deleted (concurrent replicas each delete a row at most once).
     */
    async deleteIdleApiSessions(cutoff: Date, limit: number): Promise<ApiSessionRef[]> {
      return events.transaction(async (trx) => {
        const ended = refs(await trx.deleteFrom('api_sessions')
          .where('id', 'in', (qb) => qb.selectFrom('api_sessions').select('id').where('last_activity_at', '<', cutoff).limit(limit))
          .returning(['id', 'identity_id']).execute());
        await events.apiSessionsDeleted(trx, ended);
        return ended;
      });
    },

    /**
     * Deletes everything an identity authenticates with (API sessions, authenticators, MFA) in
     * one transaction; returns the API sessions this call deleted.
     */
    async deleteIdentityAuth(identityId: string): Promise<ApiSessionRef[]> {
      return this.deleteApiSessionsOf(identityId, true);
    },

    /** Deletes an identity's API sessions (and with `everything`, what it authenticates with). */
    async deleteApiSessionsOf(identityId: string, everything = false): Promise<ApiSessionRef[]> {
      return events.transaction(async (trx) => {
        const ended = refs(await trx.deleteFrom('api_sessions').where('identity_id', '=', identityId)
          .returning(['id', 'identity_id']).execute());
        if (everything) {
          const authenticators = await trx.deleteFrom('authenticators').where('identity_id', '=', identityId).returning(['id', 'identity_id']).execute();
          await events.authenticatorsChanged(trx, 'deleted', owned(authenticators));
          const mfas = await trx.deleteFrom('mfas').where('identity_id', '=', identityId).returning(['id', 'identity_id']).execute();
          for (const m of owned(mfas)) await events.mfaDeleted(trx, m);
        }
        await events.apiSessionsDeleted(trx, ended);
        return ended;
      });
    },
  };
}

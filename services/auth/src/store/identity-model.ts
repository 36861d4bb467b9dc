/**
 * The auth service's read model of identities: what login, API session validation and the
 * principal need of an identity the identity service owns, kept from its events and a periodic
 * reconciliation (ARCHITECTURE.md rule 8), so those paths never ask the identity service.
 *
 * Each row carries the identity's `updated_at` as its version: an event or a reconciled row
 * replaces it only when at least as new (and, when equally new, different), so a late older
 * event never overwrites a newer row and a repeated one changes nothing. A deletion leaves a
 * row marked deleted, which nothing older brings back. Whenever a row changes, an
 * `edge.auth.principal.updated` event is recorded in the same transaction: the gateway drops the
 * cached principals of that identity only once this model can answer with the change.
 */
import { sql, type Kysely } from 'kysely';
import { PRINCIPAL_UPDATED, type PrincipalEvent } from '@edge/events';
import { enqueueEvents, idInPage, type Outbox, type PageRange } from '@edge/outbox';
import { identityFromEvent, isDisabledNow, type IdentityInfo, type IdentityRecord } from '../domain/identity.js';
import type { AuthDb, IdentitiesTable } from './db.js';

type Db = Kysely<AuthDb>;

const toRow = (r: IdentityRecord, deleted: boolean) => ({
  id: r.id, name: r.name, type_id: r.typeId, is_admin: r.isAdmin, is_default_admin: r.isDefaultAdmin, disabled: r.disabled,
  disabled_until: r.disabledUntil, auth_policy_id: r.authPolicyId || 'default', external_id: r.externalId, permissions: r.permissions,
  role_attributes: r.roleAttributes, deleted, updated_at: r.updatedAt, seen_at: sql<Date>`now()` as unknown as Date,
});

/** The columns whose change is a change of the identity (compared when two versions are equally new). */
const CONTENT = ['name', 'type_id', 'is_admin', 'is_default_admin', 'disabled', 'disabled_until', 'auth_policy_id', 'external_id', 'permissions', 'role_attributes', 'deleted'] as const;
const contentOf = (table: string) => sql.join(CONTENT.map((c) => sql.ref(`${table}.${c}`)));

/** Two column values equal as `is distinct from` compares them: dates by instant, arrays element by element. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i]);
  return a === b;
}

/**
 * Whether the upsert would leave `row` as it is for `r`: the row is deleted, newer, or equally new
 * with the same content. The upsert judges again in its own statement; this only spares it the
 * records that find nothing to change (nearly every one of a reconciliation).
 */
function holds(row: Omit<IdentitiesTable, 'seen_at'>, r: IdentityRecord): boolean {
  if (row.deleted) return true;
  const stored = row.updated_at.getTime();
  const incoming = r.updatedAt.getTime();
  if (stored !== incoming) return stored > incoming;
  const next = toRow(r, false);
  return CONTENT.every((c) => sameValue(row[c], next[c]));
}

/** An identity as login and the principal see it, from its row of the model. */
export function toIdentityInfo(r: Omit<IdentitiesTable, 'seen_at'>, now = new Date()): IdentityInfo {
  return {
    id: r.id, name: r.name, isAdmin: r.is_admin, isDefaultAdmin: r.is_default_admin,
    disabled: isDisabledNow(r.disabled, r.disabled_until, now), authPolicyId: r.auth_policy_id,
    permissions: r.permissions, roleAttributes: r.role_attributes, externalId: r.external_id, updatedAt: r.updated_at,
  };
}

/** What a look-up by id found: the identity, that it was deleted, or nothing known. */
export type ModelLookup = { state: 'present'; identity: IdentityInfo } | { state: 'deleted' } | { state: 'unknown' };

/** The look-up answer of a row of the model (undefined: none). */
export function lookupOf(row: Omit<IdentitiesTable, 'seen_at'> | undefined): ModelLookup {
  if (!row) return { state: 'unknown' };
  return row.deleted ? { state: 'deleted' } : { state: 'present', identity: toIdentityInfo(row) };
}

/** Creates the read model over the auth schema; changes record their event through `outbox`. */
/**
 * Records `edge.auth.principal.updated` for those of `ids` that have an API session (only they
 * have principals to drop), in one statement: a reconciliation after a bulk import changes
 * thousands of rows, none of them logged in yet.
 */
async function announce(trx: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const withSessions = await trx.selectFrom('api_sessions').select('identity_id').distinct()
    .where(sql<boolean>`identity_id = any(${[...ids]}::text[])`).execute();
  await enqueueEvents(trx, PRINCIPAL_UPDATED, withSessions.map((r): PrincipalEvent => ({ identityId: r.identity_id })));
}

export function createIdentityModel(db: Db, outbox: Outbox<AuthDb>) {
  /** Upserts `records` where newer; the ids whose row changed (their events recorded). */
  async function upsert(trx: Db, records: readonly IdentityRecord[], deleted: boolean): Promise<string[]> {
    if (records.length === 0) return [];
    const rows = await trx.insertInto('identities').values(records.map((r) => toRow(r, deleted)))
      .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({
        name: eb.ref('excluded.name'), type_id: eb.ref('excluded.type_id'), is_admin: eb.ref('excluded.is_admin'),
        is_default_admin: eb.ref('excluded.is_default_admin'), disabled: eb.ref('excluded.disabled'),
        disabled_until: eb.ref('excluded.disabled_until'), auth_policy_id: eb.ref('excluded.auth_policy_id'),
        external_id: eb.ref('excluded.external_id'), permissions: eb.ref('excluded.permissions'),
        role_attributes: eb.ref('excluded.role_attributes'), deleted: eb.ref('excluded.deleted'),
        updated_at: eb.ref('excluded.updated_at'), seen_at: eb.ref('excluded.seen_at'),
      })).where(sql<boolean>`not identities.deleted and (identities.updated_at < excluded.updated_at
        or (identities.updated_at = excluded.updated_at and (${contentOf('identities')}) is distinct from (${contentOf('excluded')})))`))
      .returning('id').execute();
    const changed = rows.map((r) => r.id);
    await announce(trx, changed);
    return changed;
  }

  const forget = async (id: string): Promise<void> => {
    await outbox.transaction(async (trx) => {
      const gone = await trx.deleteFrom('identities').where('id', '=', id).where('deleted', '=', false).executeTakeFirst();
      if (Number(gone.numDeletedRows) > 0) await outbox.enqueue(trx, PRINCIPAL_UPDATED, { identityId: id } satisfies PrincipalEvent);
    });
  };

  return {
    /**
     * Applies an `edge.identity.identity.*` payload. One this model cannot read (sent before the
     * identity service announced every field) makes it forget the row, so the next look-up asks.
     */
    async applyEvent(data: { id: string }, change: 'changed' | 'deleted'): Promise<void> {
      const record = identityFromEvent(data);
      if (!record) return forget(data.id);
      await outbox.transaction((trx) => upsert(trx, [record], change === 'deleted'));
    },

    /** Applies an identity's state (an event, or what the identity service answered); true when the row changed. */
    async apply(record: IdentityRecord): Promise<boolean> {
      return (await outbox.transaction((trx) => upsert(trx, [record], false))).length > 0;
    },

    /**
     * Applies many identities' states (reconciliation); the ids whose row changed. The rows are
     * read first, in one statement, and only the records that change theirs are written: a pass
     * over an unchanged network (every minute, every identity) reads and writes nothing else.
     */
    async applyMany(records: readonly IdentityRecord[]): Promise<string[]> {
      if (records.length === 0) return [];
      const rows = await db.selectFrom('identities').selectAll().where(sql<boolean>`id = any(${records.map((r) => r.id)}::text[])`).execute();
      const stored = new Map(rows.map((r) => [r.id, r]));
      const changing = records.filter((r) => {
        const row = stored.get(r.id);
        return !row || !holds(row, r);
      });
      if (changing.length === 0) return [];
      return outbox.transaction((trx) => upsert(trx, changing, false));
    },

    /**
     * Marks deleted the rows with ids after `afterId` (and up to `throughId`, when given) that are
     * not in `present`, and that no event or reconciliation touched since `quietSince`: what the
     * identity service no longer lists. The ids marked.
     */
    async markDeletedExcept(range: PageRange, present: readonly string[], quietSince: Date): Promise<string[]> {
      return outbox.transaction(async (trx) => {
        let q = trx.updateTable('identities')
          .set({ deleted: true, updated_at: sql<Date>`greatest(updated_at, now())`, seen_at: sql<Date>`now()` })
          .where('deleted', '=', false).where('seen_at', '<', quietSince).where(idInPage(range));
        // One array parameter, not one per id: a page holds hundreds.
        if (present.length > 0) q = q.where(sql<boolean>`id <> all(${[...present]}::text[])`);
        const ids = (await q.returning('id').execute()).map((r) => r.id);
        await announce(trx, ids);
        return ids;
      });
    },

    async find(id: string): Promise<ModelLookup> {
      return lookupOf(await db.selectFrom('identities').selectAll().where('id', '=', id).executeTakeFirst());
    },

    async findByExternalId(externalId: string): Promise<IdentityInfo | undefined> {
      const row = await db.selectFrom('identities').selectAll().where('external_id', '=', externalId).where('deleted', '=', false).executeTakeFirst();
      return row && toIdentityInfo(row);
    },

    /** The identities of `ids` this model holds, and the ids it knows to be deleted. */
    async findMany(ids: readonly string[]): Promise<{ found: Map<string, IdentityInfo>; deleted: Set<string> }> {
      const found = new Map<string, IdentityInfo>();
      const deleted = new Set<string>();
      if (ids.length === 0) return { found, deleted };
      const rows = await db.selectFrom('identities').selectAll().where('id', 'in', [...new Set(ids)]).execute();
      const now = new Date();
      for (const r of rows) {
        if (r.deleted) deleted.add(r.id);
        else found.set(r.id, toIdentityInfo(r, now));
      }
      return { found, deleted };
    },
  };
}

export type IdentityModel = ReturnType<typeof createIdentityModel>;

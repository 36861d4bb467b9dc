/**
 * The SQL of GetIdentityAuthSummaries, pinned: read for every identity a management page or a
 * client's `/current-identity` shows. It runs over a store whose Kysely records every statement;
 * the statement is counted and explained (with its parameters, analysed) over tables of a few
 * thousand rows, and may not read a whole table of that size.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kysely, sql, type CompiledQuery } from 'kysely';
import { schemaName } from '@edge/config';
import { seqScansOf } from '@edge/testing';
import type { AuthEvents } from '../src/events.js';
import { createStore, type AuthStore } from '../src/store/api-session.js';
import { createHarness, type Harness } from './harness.js';

const ROWS = 3_000;
const LARGE = ['authenticators', 'api_sessions', 'mfas'];

let h: Harness;
let db: Kysely<any>;
let store: AuthStore;
const ran: CompiledQuery[] = [];

beforeAll(async () => {
  h = await createHarness();
  await h.startAuth();
  const t = (name: string) => sql.id(schemaName(h.config, 'auth'), name);
  const n = sql`generate_series(1, ${ROWS}) n`;
  // Identity i<n> has a password; every other one a certificate too; every third an API
  // session; every fifth MFA, verified on every tenth.
  await sql`insert into ${t('authenticators')} (id, identity_id, method, username, password_hash)
    select 'u' || n, 'i' || n, 'updb', 'user-' || n, 'hash' from ${n}`.execute(h.db);
  await sql`insert into ${t('authenticators')} (id, identity_id, method, fingerprint, cert_pem)
    select 'c' || n, 'i' || n, 'cert', 'fp' || n, 'pem' from ${n} where n % 2 = 0`.execute(h.db);
  await sql`insert into ${t('api_sessions')} (id, token_hash, identity_id, authenticator_id)
    select 's' || n, 'h' || n, 'i' || n, 'u' || n from ${n} where n % 3 = 0`.execute(h.db);
  await sql`insert into ${t('mfas')} (id, identity_id, is_verified, secret_sealed, recovery_codes_sealed)
    select 'm' || n, 'i' || n, n % 10 = 0, 'x', 'x' from ${n} where n % 5 = 0`.execute(h.db);
  for (const table of LARGE) await sql`analyze ${t(table)}`.execute(h.db);

  db = new Kysely<any>({ dialect: h.conn.dialect(), log: (e) => { ran.push(e.query); } }).withSchema(schemaName(h.config, 'auth'));
  store = createStore(db, undefined as unknown as AuthEvents);
}, 120_000);

afterAll(async () => {
  await db?.destroy();
  await h?.close();
});

const scansOf = (statements: CompiledQuery[]) => seqScansOf(db, statements, LARGE);

describe('identity auth summaries', () => {
  it('answers a page of identities in one indexed statement', async () => {
    const ids = ['i10', 'i15', 'i30', 'i7', 'unknown', 'i10'];
    ran.length = 0;
    const summaries = new Map((await store.authSummariesOf(ids)).map((s) => [s.identityId, s]));
    const statements = [...ran];
    expect(statements).toHaveLength(1);
    expect(summaries.size).toBe(5);
    expect(summaries.get('i10')).toEqual({
      identityId: 'i10', updb: { id: 'u10', username: 'user-10' }, cert: { id: 'c10', fingerprint: 'fp10' }, hasApiSession: false, isMfaEnabled: true,
    });
    // MFA enrolled but not verified is not enabled.
    expect(summaries.get('i15')).toEqual({ identityId: 'i15', updb: { id: 'u15', username: 'user-15' }, cert: undefined, hasApiSession: true, isMfaEnabled: false });
    expect(summaries.get('i30')).toMatchObject({ hasApiSession: true, isMfaEnabled: true, cert: { id: 'c30', fingerprint: 'fp30' } });
    expect(summaries.get('i7')).toMatchObject({ hasApiSession: false, isMfaEnabled: false, cert: undefined });
    expect(summaries.get('unknown')).toEqual({ identityId: 'unknown', updb: undefined, cert: undefined, hasApiSession: false, isMfaEnabled: false });
    expect(await scansOf(statements)).toEqual([]);
  });

  it('asks nothing for no identity', async () => {
    ran.length = 0;
    expect(await store.authSummariesOf([])).toEqual([]);
    expect(ran).toHaveLength(0);
  });
});

/**
 * Bulk import of password (updb) authenticators straight into the auth service's schema, for
 * loading large datasets while the controller is stopped. Each password gets its own salt, so
 * hashing dominates the time: give passwords only to the identities that need to log in.
 */
import { vacuumAnalyzeTables, createDb, type DbConnection } from '@edge/db';
import { atPath, fieldError } from '@edge/errors';
import { newId } from '@edge/ids';
import { hashPassword } from './domain/password.js';
import { insertAuthenticatorsInBulk } from './store/authenticator.js';
import type { AuthDb } from './store/db.js';

/** A password login for an imported identity. */
export interface BulkPassword {
  identityId: string;
  username: string;
  password: string;
}

/** A validated import: the authenticator ids (in input order), hashed and written by `write`. */
export interface PasswordImport {
  ids: string[];
  write(conn: DbConnection, schema: string): Promise<void>;
}

/** Validates the list (a bad entry is a field error under `passwords[i]`). */
export function planPasswordImport(list: readonly BulkPassword[]): PasswordImport {
  list.forEach((p, i) => atPath(`passwords[${i}]`, () => {
    if (!p.username) throw fieldError('username', 'must not be empty', p.username);
    if (!p.password || p.password.length < 5) throw fieldError('password', 'must be at least 5 characters', null);
  }));
  const ids = list.map(() => newId());
  return {
    ids,
    async write(conn, schema) {
      // A few at a time: scrypt runs on the thread pool.
      const rows = [];
      for (let i = 0; i < list.length; i += 8) {
        rows.push(...await Promise.all(list.slice(i, i + 8).map(async (p, j) => ({
          id: ids[i + j]!, identityId: p.identityId, method: 'updb' as const, username: p.username, passwordHash: await hashPassword(p.password), tags: {},
        }))));
      }
      const db = createDb<AuthDb>(conn, schema);
      await insertAuthenticatorsInBulk(db, rows);
      await vacuumAnalyzeTables(db, schema, ['authenticators']);
      await db.destroy();
    },
  };
}

/**
 * The salt the key-encryption key is derived with, stored once per schema.
 */
import type { PkiKysely } from './db.js';

/** Creates the store of the key-encryption salt. */
export function createKeyEncryptionStore(db: PkiKysely) {
  return {
    /** Stores `salt` unless one exists, and returns the one in effect (first writer wins). */
    async ensureScryptSalt(salt: Buffer): Promise<Buffer> {
      await db.insertInto('key_encryption').values({ scrypt_salt: salt }).onConflict((oc) => oc.column('id').doNothing()).execute();
      const row = await db.selectFrom('key_encryption').select('scrypt_salt').executeTakeFirstOrThrow();
      return Buffer.from(row.scrypt_salt);
    },
  };
}

export type KeyEncryptionStore = ReturnType<typeof createKeyEncryptionStore>;

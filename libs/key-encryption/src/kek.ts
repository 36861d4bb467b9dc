/**
 * Where the key-encryption key (KEK) of secrets at rest comes from: EDGE_KEY_ENCRYPTION_KEY
 * when configured, else a random key file in the data directory.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '@edge/config';
import type { Logger } from '@edge/logging';
import { keyFromConfigured, newSalt, parseRawKey } from './key-encryption.js';

/** The file holding the generated KEK when none is configured. */
export const KEY_FILE = 'pki.key';

/**
 * Stores `candidate` as the installation's scrypt salt unless one is stored already, and returns
 * the stored one (each service keeps it in its own schema).
 */
export type EnsureSalt = (candidate: Buffer) => Promise<Buffer>;

/**
 * Resolves the KEK. A passphrase is stretched with scrypt and the installation's salt from the
 * caller's schema; without configuration the key file is used (created at first start).
 * Replicas that do not share a data directory must therefore be given EDGE_KEY_ENCRYPTION_KEY.
 */
export async function resolveKek(config: Pick<Config, 'keyEncryptionKey' | 'dataDir'>, ensureSalt: EnsureSalt, log: Logger): Promise<Buffer> {
  const configured = config.keyEncryptionKey;
  if (configured) {
    if (parseRawKey(configured)) return keyFromConfigured(configured, Buffer.alloc(0));
    return keyFromConfigured(configured, await ensureSalt(newSalt()));
  }
  return loadOrCreateKeyFile(config.dataDir, log);
}

/**
 * Reads `<dataDir>/pki.key`, creating it (mode 0600) with 32 random bytes in hex when absent.
 * The key is written to a private temporary file and hard-linked into place, so two processes
 * starting together never see a partly written file and exactly one key wins.
 */
export async function loadOrCreateKeyFile(dataDir: string, log: Logger): Promise<Buffer> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, KEY_FILE);
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}`;
  try {
    await writeFile(tmp, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
    await link(tmp, path);
    log.info({ path }, 'created the key-encryption key file');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
  const key = parseRawKey((await readFile(path, 'utf8')).trim());
  if (!key) throw new Error(`${path} does not hold a 32-byte key in hex`);
  return key;
}

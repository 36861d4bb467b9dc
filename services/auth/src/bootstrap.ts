/**
 * The default admin's updb authenticator, created at first start so an operator can log in.
 * Safe when several replicas start together: one insert wins, only the winner reports.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '@edge/config';
import { newId } from '@edge/ids';
import type { Logger } from '@edge/logging';
import { hashPassword, randomPassword } from './domain/password.js';
import { retryWhileUnavailable, type Identities } from './peers/identity.js';
import type { AuthStore } from './store/api-session.js';

/** Name given to the default admin identity when the identity service creates it. */
export const DEFAULT_ADMIN_NAME = 'Default Admin';
/** File holding a generated admin password, under the data directory. */
export const ADMIN_CREDENTIALS_FILE = 'admin-credentials.txt';
const IDENTITY_WAIT_MS = 120_000;

/** What the bootstrap works with. */
export interface BootstrapDeps {
  config: Config;
  store: AuthStore;
  identities: Identities;
  log: Logger;
  /** Aborts waiting for the identity service (stop during start). */
  signal?: AbortSignal;
}

/**
 * Ensures a updb authenticator named `config.admin.username` exists. Changes nothing when it
 * does (a changed EDGE_ADMIN_PASSWORD does not overwrite a password set since).
 */
export async function bootstrapDefaultAdmin(deps: BootstrapDeps): Promise<void> {
  const { config, store, identities, log } = deps;
  const username = config.admin.username;
  if (await store.findUpdbByUsername(username)) return;
  const admin = await retryWhileUnavailable(() => identities.ensureDefaultAdmin(DEFAULT_ADMIN_NAME), {
    timeoutMs: IDENTITY_WAIT_MS, log, signal: deps.signal,
  });
  const generated = config.admin.password === undefined;
  const password = config.admin.password ?? randomPassword();
  const inserted = await store.insertUpdbIfAbsent({
    id: newId(), identityId: admin.id, username, passwordHash: await hashPassword(password),
  });
  if (!inserted) {
    // another replica won the race and reports its own password, or the admin's updb
    // authenticator was given another username since (then there is nothing to create)
    if (!(await store.findUpdbByUsername(username))) {
      log.warn({ username, identityId: admin.id }, 'default admin already has a updb authenticator under another username; none created');
    }
    return;
  }
  log.info({ username, identityId: admin.id, generatedPassword: generated }, 'default admin authenticator created');
  if (generated) await reportGeneratedPassword(config.dataDir, username, password);
}

/**
 * Writes the generated credentials to a 0600 file and names them once on stdout, not through
 * the logger, so the password never lands in log aggregation.
 */
async function reportGeneratedPassword(dataDir: string, username: string, password: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  const file = join(dataDir, ADMIN_CREDENTIALS_FILE);
  // mode only applies to a new file: remove a stale one rather than write into its old mode
  await rm(file, { force: true });
  await writeFile(file, `username: ${username}\npassword: ${password}\n`, { mode: 0o600, flag: 'wx' });
  process.stdout.write(`default admin created: username "${username}", password "${password}" (also saved in ${file})\n`);
}

/**
 * A non-admin identity that can log in with a password. Until updb enrollment exists there is
 * no API that sets a password, so the test writes the authenticator row the auth service would
 * write after enrollment (same table, same hash format), then logs in through the API.
 */
import { randomBytes, scrypt } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import type { TestController } from './controller.js';
import { TEST_DATABASE_URL } from './infra.js';

const scryptAsync = promisify(scrypt) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>;

async function hash(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, 32, { N: 16384, r: 8, p: 1 });
  return `scrypt$16384$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** Creates an identity through the API and gives it a username/password authenticator. */
export async function createPasswordIdentity(c: TestController, adminToken: string, name: string, password: string, isAdmin = false) {
  const r = await c.http.post('/edge/management/v1/identities', { body: { name, type: 'User', isAdmin }, session: adminToken, expectStatus: 201 });
  const id = r.body.data.id as string;
  const db = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await db.connect();
  try {
    await db.query(
      `INSERT INTO "${c.prefix}_auth".authenticators (id, identity_id, method, username, password_hash) VALUES ($1, $2, 'updb', $3, $4)`,
      [`a${randomBytes(5).toString('hex')}`, id, name, await hash(password)],
    );
  } finally {
    await db.end();
  }
  return { id, token: await c.login(name, password) };
}

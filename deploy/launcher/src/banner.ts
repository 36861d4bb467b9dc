/** What the launcher prints once the controller answers: where it is and how to log in. */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '@edge/config';

/** The file the auth service writes a generated admin password to (under the data dir). */
const CREDENTIALS_FILE = 'admin-credentials.txt';

/** Where the admin's credentials are: the variable that set the password, or the file holding a generated one. */
export function adminCredentials(config: Config): string {
  const user = `admin "${config.admin.username}"`;
  if (config.admin.password !== undefined) return `${user}, password from EDGE_ADMIN_PASSWORD`;
  const file = resolve(join(config.dataDir, CREDENTIALS_FILE));
  return existsSync(file)
    ? `${user}, generated password in ${file}`
    : `${user} was created at an earlier start; its generated password was saved in ${file} then (removed since)`;
}

/** The ready banner: URLs of both APIs and the admin credentials. */
export function banner(url: string, config: Config, extra: string[] = []): string {
  const lines = [
    `edge controller ready at ${url}`,
    `  client API:     ${url}/edge/client/v1`,
    `  management API: ${url}/edge/management/v1`,
    `  ${adminCredentials(config)}`,
    ...extra.map((l) => `  ${l}`),
  ];
  return `\n${lines.join('\n')}\n\n`;
}

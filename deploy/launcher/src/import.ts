/**
 * `main.js import <dataset.json>`: loads a large dataset (identities with optional passwords,
 * edge routers, services and the three policy kinds) through each owning service's bulk path,
 * in a few statements per thousand rows instead of one API call per row. Run it against a
 * stopped controller (nothing is published on the bus; the services read the rows when they
 * start); it migrates the schemas it writes first, so it also works on an empty database.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemaName, type Config, type ServiceName } from '@edge/config';
import { migrate, withRowProgress } from '@edge/db';
import { openDatabase } from '@edge/lifecycle';
import type { Logger } from '@edge/logging';
import { planPasswordImport } from '@edge/auth';
import { planIdentityImport, type BulkEdgeRouter, type BulkIdentity } from '@edge/identity';
import { planPolicyImport, type PolicyData } from '@edge/policy';
import { createProgress, type ProgressStream } from './progress.js';

/** The file's shape: the API's names; an identity's `password` makes a updb login named after it. */
export interface Dataset extends PolicyData {
  identities?: Array<BulkIdentity & { password?: string }>;
  edgeRouters?: BulkEdgeRouter[];
}

export type ImportedIds = Record<'identities' | 'edgeRouters' | 'passwords' | keyof PolicyData, string[]>;

/** A service package's migrations directory (beside its dist/). */
function migrationsOf(pkg: string): string {
  return join(dirname(fileURLToPath(import.meta.resolve(pkg))), '..', 'migrations');
}

/** Options of {@link importDataset}. */
export interface ImportOptions {
  /** Told of the rows written, chunk by chunk. */
  onRows?: (rows: number) => void;
}

/**
 * Imports `data`; answers the ids written, per list, in input order. Every row is validated
 * before anything is written, so a bad row (a field error naming it, `services[3].name`)
 * changes nothing.
 */
export async function importDataset(config: Config, data: Dataset, log: Logger, opts: ImportOptions = {}): Promise<ImportedIds> {
  const identities = planIdentityImport(data);
  const passwords = planPasswordImport((data.identities ?? []).flatMap((x, i) =>
    x.password === undefined ? [] : [{ identityId: identities.ids.identities[i]!, username: x.name, password: x.password }]));
  const policies = planPolicyImport(data);
  const conn = await openDatabase(config, log, 2);
  try {
    const schema = async (name: ServiceName, pkg: string) => {
      await migrate(conn, schemaName(config, name), migrationsOf(pkg), log);
      return schemaName(config, name);
    };
    await withRowProgress(opts.onRows ?? (() => undefined), async () => {
      await identities.write(conn, await schema('identity', '@edge/identity'));
      await passwords.write(conn, await schema('auth', '@edge/auth'));
      await policies.write(conn, await schema('policy', '@edge/policy'));
    });
    return { ...identities.ids, passwords: passwords.ids, ...policies.ids };
  } finally {
    await conn.close();
  }
}

/** How many rows importing `data` writes (one per entity, one per password). */
export function rowCount(data: Dataset): number {
  const lists = [data.identities, data.edgeRouters, data.services, data.servicePolicies, data.edgeRouterPolicies, data.serviceEdgeRouterPolicies];
  const passwords = (data.identities ?? []).filter((x) => x.password !== undefined).length;
  return lists.reduce((n, l) => n + (l?.length ?? 0), passwords);
}

/** The CLI: reads the file, imports with a progress line on `progress`, prints the counts. */
export async function importFile(config: Config, file: string, log: Logger, progress: ProgressStream = process.stderr): Promise<void> {
  const data = JSON.parse(readFileSync(file, 'utf8')) as Dataset;
  const bar = createProgress('importing', rowCount(data), 'rows', progress);
  const ids = await importDataset(config, data, log, { onRows: (n) => bar.add(n) });
  bar.done();
  process.stdout.write(`${Object.entries(ids).map(([k, v]) => `${k}: ${v.length}`).join(', ')}\n`);
}

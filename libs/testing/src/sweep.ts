/**
 * Removing what tests create in the shared Postgres and NATS: one prefix's schemas and stream
 * when its test ends (or its set-up fails), and, at the start of a run, whatever runs that
 * crashed left behind hours ago. Prefixes of runs going on now are younger and stay.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropSchema, executeSql, openConnection } from '@edge/db';
import { connect, type StreamInfo } from 'nats';
import { testPrefixOf, testPrefixTime } from './test-prefix.js';

/** Where tests keep their data: a Postgres URL and a NATS URL. */
export interface TestInfra {
  databaseUrl: string;
  natsUrl: string;
}

/** No test run lasts this long: anything of a test prefix older than this is a leftover. */
export const STALE_AFTER_MS = 3 * 3600_000;

/** Temporary directories of tests start with this (`mkdtemp(join(tmpdir(), 'edge-test-…'))`). */
export const TEST_DIR_PREFIX = 'edge-test-';

/** Streams named by the random prefixes tests used before prefixes carried their time. */
const UNDATED_TEST_STREAM = /^EDGE_t[0-9a-z]{8}$/;

/** A JetStream time that means "never" (a stream without messages). */
const NEVER = Date.parse('0001-01-01T00:00:00Z');

const streamName = (prefix: string) => `EDGE_${prefix}`;
/** `text` as a regular expression matching just itself. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The schemas whose name matches `pattern` (a Postgres regex) and `like`. */
async function schemasOf(databaseUrl: string, like: (name: string) => boolean, pattern: string): Promise<string[]> {
  const conn = await openConnection({ url: databaseUrl, poolSize: 1 });
  try {
    const rows = await executeSql<{ nspname: string }>(conn, 'select nspname from pg_namespace where nspname ~ $1', [pattern]);
    return rows.map((r) => r.nspname).filter(like);
  } finally {
    await conn.close();
  }
}

async function dropSchemas(databaseUrl: string, schemas: readonly string[]): Promise<void> {
  if (!schemas.length) return;
  const conn = await openConnection({ url: databaseUrl, poolSize: 1 });
  try {
    for (const s of schemas) await dropSchema(conn, s);
  } finally {
    await conn.close();
  }
}

/**
 * Drops everything `prefix` made: each schema `<prefix>_…` and the stream `EDGE_<prefix>` with
 * its durable consumers. Missing ones are fine (a set-up may have failed before making them).
 */
export async function dropTestPrefix(infra: TestInfra, prefix: string): Promise<void> {
  const schemas = await schemasOf(infra.databaseUrl, (n) => n.startsWith(`${prefix}_`), `^${literal(prefix)}_`);
  await dropSchemas(infra.databaseUrl, schemas);
  const nc = await connect({ servers: infra.natsUrl, timeout: 5_000 });
  try {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(streamName(prefix)).catch(() => false);
  } finally {
    await nc.close();
  }
}

/** What of a test prefix exists: its schemas, its stream, and test directories named after it. */
export interface PrefixRemains {
  schemas: string[];
  stream: boolean;
  dirs: string[];
}

/** What `prefix` left (tests of clean-up); `dir` is where test directories are looked for. */
export async function testPrefixRemains(infra: TestInfra, prefix: string, dir: string = tmpdir()): Promise<PrefixRemains> {
  const schemas = await schemasOf(infra.databaseUrl, (n) => n.startsWith(`${prefix}_`), `^${literal(prefix)}_`);
  const nc = await connect({ servers: infra.natsUrl, timeout: 5_000 });
  try {
    const stream = await (await nc.jetstreamManager()).streams.info(streamName(prefix)).then(() => true, () => false);
    const dirs = (await readdir(dir)).filter((d) => d.startsWith(`${TEST_DIR_PREFIX}${prefix}`));
    return { schemas: schemas.sort(), stream, dirs };
  } finally {
    await nc.close();
  }
}

/**
 * Whether a stream is a test's leftover: named after a test prefix made more than `maxAgeMs`
 * before `now` (or, for the undated prefixes of older tests, created that long ago), and
 * without a message in that time either.
 */
export function isStaleTestStream(info: Pick<StreamInfo, 'created'> & { config: { name: string }; state: { last_ts: string } }, now: number, maxAgeMs: number): boolean {
  const name = info.config.name;
  const prefix = testPrefixOf(name);
  const made = prefix !== undefined && name === streamName(prefix) ? testPrefixTime(prefix, now)
    : UNDATED_TEST_STREAM.test(name) ? Date.parse(info.created) : undefined;
  if (made === undefined || !(now - made > maxAgeMs)) return false;
  const last = Date.parse(info.state.last_ts);
  return Number.isNaN(last) || last <= NEVER || now - last > maxAgeMs;
}

/** What a sweep removed. */
export interface SweepResult {
  schemas: string[];
  streams: string[];
  dirs: string[];
}

/** Options of {@link sweepStaleTestPrefixes}; the infra parts left out are not swept. */
export interface SweepOptions extends Partial<TestInfra> {
  /** Age after which a test prefix is a leftover (default {@link STALE_AFTER_MS}). */
  maxAgeMs?: number;
  now?: number;
  /** Where test directories are swept (default the system's); null sweeps none. */
  tmpDir?: string | null;
}

/** Schemas of test prefixes older than `maxAgeMs`. */
async function staleSchemas(databaseUrl: string, now: number, maxAgeMs: number): Promise<string[]> {
  return schemasOf(databaseUrl, (n) => {
    const prefix = testPrefixOf(n);
    const made = prefix === undefined ? undefined : testPrefixTime(prefix, now);
    return made !== undefined && now - made > maxAgeMs;
  }, '^t[0-9a-z]{7}[0-9a-f]{6}_');
}

async function sweepStreams(natsUrl: string, now: number, maxAgeMs: number): Promise<string[]> {
  const nc = await connect({ servers: natsUrl, timeout: 5_000 });
  try {
    const jsm = await nc.jetstreamManager();
    const stale: string[] = [];
    for await (const info of jsm.streams.list()) if (isStaleTestStream(info, now, maxAgeMs)) stale.push(info.config.name);
    for (const name of stale) await jsm.streams.delete(name).catch(() => false);
    return stale;
  } finally {
    await nc.close();
  }
}

async function sweepDirs(dir: string, now: number, maxAgeMs: number): Promise<string[]> {
  const removed: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.startsWith(TEST_DIR_PREFIX)) continue;
    const path = join(dir, entry.name);
    const { mtimeMs } = await stat(path).catch(() => ({ mtimeMs: now }));
    if (now - mtimeMs <= maxAgeMs) continue;
    await rm(path, { recursive: true, force: true }).catch(() => undefined);
    removed.push(path);
  }
  return removed;
}

/**
 * Removes the leftovers of test runs that ended without cleaning up: schemas and JetStream
 * streams (with their consumers) of test prefixes, and test directories, all older than
 * `maxAgeMs`. What younger runs made is left alone, so runs going on now are not disturbed.
 */
export async function sweepStaleTestPrefixes(opts: SweepOptions): Promise<SweepResult> {
  const now = opts.now ?? Date.now();
  const maxAgeMs = opts.maxAgeMs ?? STALE_AFTER_MS;
  const result: SweepResult = { schemas: [], streams: [], dirs: [] };
  if (opts.databaseUrl) {
    result.schemas = await staleSchemas(opts.databaseUrl, now, maxAgeMs);
    await dropSchemas(opts.databaseUrl, result.schemas);
  }
  if (opts.natsUrl) result.streams = await sweepStreams(opts.natsUrl, now, maxAgeMs);
  const dir = opts.tmpDir === undefined ? tmpdir() : opts.tmpDir;
  if (dir !== null) result.dirs = await sweepDirs(dir, now, maxAgeMs);
  return result;
}

/**
 * Names of what one test file creates in the shared Postgres and NATS: a prefix that says when
 * it was made, so a later run can tell the leftovers of a crashed run (hours old) from the
 * prefixes of runs going on now, and drop only the former.
 */
import { randomBytes } from 'node:crypto';

/** Digits of the creation time (base-36 Unix seconds): seven reach the year 4000. */
const TIME_DIGITS = 7;
/** `t`, the creation time, then six random hex digits; at the start of a schema or stream name. */
const PREFIX = new RegExp(`^t([0-9a-z]{${TIME_DIGITS}})[0-9a-f]{6}$`);
/** Creation times outside this range are no test prefix's (a name that merely looks like one). */
const EARLIEST = Date.UTC(2024, 0, 1);
const CLOCK_SKEW_MS = 24 * 3600_000;

/**
 * A prefix for one test's schemas (`<prefix>_<service>`), subjects (`<prefix>.`) and
 * JetStream stream (`EDGE_<prefix>`), unique and naming its creation time `now`.
 */
export function testPrefix(now: number = Date.now()): string {
  const time = Math.floor(now / 1000).toString(36).padStart(TIME_DIGITS, '0');
  return `t${time}${randomBytes(3).toString('hex')}`;
}

/**
 * When `prefix` was made (ms since the epoch), or undefined when it is not a {@link testPrefix}.
 * `now` bounds the plausible range.
 */
export function testPrefixTime(prefix: string, now: number = Date.now()): number | undefined {
  const m = PREFIX.exec(prefix);
  if (!m) return undefined;
  const ms = parseInt(m[1]!, 36) * 1000;
  return ms >= EARLIEST && ms <= now + CLOCK_SKEW_MS ? ms : undefined;
}

/** The test prefix a schema (`<prefix>_…`) or stream (`EDGE_<prefix>`) name starts with, if any. */
export function testPrefixOf(name: string): string | undefined {
  const bare = name.startsWith('EDGE_') ? name.slice(5) : name;
  const candidate = bare.split('_')[0]!;
  return testPrefixTime(candidate) === undefined ? undefined : candidate;
}

/**
 * Statements the Postgres server keeps prepared, per connection, under a name: the SQL of
 * precompiled queries (precompiled.ts). Sent by name, a statement is parsed and planned once per
 * connection instead of on every run, which for a large statement (the access checked on every
 * session creation) costs the server more than running it.
 *
 * A connection whose prepared statement no longer fits its tables (a migration of a newer
 * replica changed a table it reads: "cached plan must not change result type") runs that
 * statement unnamed from then on; the pool replaces connections in time.
 */
import { createHash } from 'node:crypto';

/** SQL text → statement name. */
const names = new Map<string, string>();

/** Registers `text` to run as a named prepared statement; its name. */
export function prepareByName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `edge_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * A registrar for one call site whose texts vary a little (a list's order): the first `max`
 * distinct texts it is given run by name, later others unnamed, so no caller can make the
 * statements a connection keeps grow without bound.
 */
export function preparedAmong(max: number): (text: string) => void {
  const mine = new Set<string>();
  return (text) => {
    if (mine.has(text) || mine.size >= max) return;
    mine.add(text);
    prepareByName(text);
  };
}

/** The name `text` runs under, if it was registered. */
export const preparedName = (text: string): string | undefined => names.get(text);

/**
 * True for the errors after which a named statement must not be used on that connection again:
 * its result type changed under it (SQLSTATE 0A000), or the server no longer knows it (26000).
 */
export function isStalePrepared(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  if (e?.code === '26000') return true;
  return e?.code === '0A000' && typeof e.message === 'string' && e.message.includes('cached plan must not change result type');
}

/**
 * Queries built and compiled once and run many times: for the hottest reads (one row by id,
 * asked on every request), building the query tree, applying the schema and compiling the SQL
 * cost more CPU than the database spends answering it. On a Postgres pool the SQL also runs as a
 * named prepared statement (prepared.ts), which the server parses and plans once per connection.
 */
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { prepareByName } from './prepared.js';

/** A marker standing for the i-th argument while the query is compiled; never sent. */
const marker = (i: number) => `\u0000edge-precompiled-parameter-${i}\u0000`;

/**
 * Wraps `build`, which builds the query from its arguments (`arity` of them), as a function
 * that runs it with new arguments without building or compiling it again. `build` is called
 * once, on the first run, with markers in place of the arguments: each must become bound
 * parameters of the query, once or more (a `where('id', '=', id)` or an array bound whole, not
 * an `in` list of variable length or a value that shapes the SQL). The query runs on `db`, the
 * Kysely it was built with, or a transaction of it.
 */
export function precompiled<A extends unknown[], R>(arity: A['length'], build: (...args: A) => Compilable<R>): (db: Kysely<any>, ...args: A) => Promise<R[]> {
  let compiled: { query: CompiledQuery<R>; slots: Array<number | undefined> } | undefined;
  const compile = () => {
    const markers = Array.from({ length: arity }, (_, i) => marker(i));
    const query = build(...(markers as A)).compile();
    const slots = query.parameters.map((p) => {
      const i = typeof p === 'string' ? markers.indexOf(p) : -1;
      return i < 0 ? undefined : i;
    });
    const used = new Set(slots.filter((s) => s !== undefined));
    if (used.size !== arity) {
      throw new Error(`precompiled: each of the ${arity} arguments must be a bound parameter of the query (${query.sql})`);
    }
    prepareByName(query.sql);
    return { query, slots };
  };
  return async (db, ...args) => {
    compiled ??= compile();
    const { query, slots } = compiled;
    const parameters = query.parameters.map((p, j) => (slots[j] === undefined ? p : args[slots[j]!]));
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}

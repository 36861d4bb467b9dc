/**
 * Counts every SQL statement a process sends (`edge_db_statements_total`), on the pg pool and on
 * the embedded database alike, transaction control included: the number of round trips a
 * request costs is what the benchmark reports per scenario.
 */
import { processMetrics } from '@edge/metrics';

/** Operations counted by name; anything else is `other`, so the label stays small. */
const OPERATIONS = new Set(['select', 'insert', 'update', 'delete', 'with', 'begin', 'commit', 'rollback', 'savepoint', 'release', 'set', 'create', 'alter', 'drop', 'lock', 'analyze', 'truncate']);

/** The first keyword of `text`, lower case (`start transaction` is `begin`), or `other`. */
export function statementOperation(text: string): string {
  const first = /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toLowerCase();
  const word = first === 'start' ? 'begin' : first;
  return word !== undefined && OPERATIONS.has(word) ? word : 'other';
}

/** Records one statement about to be sent. */
export function countStatement(text: string): void {
  processMetrics().dbStatement(statementOperation(text));
}

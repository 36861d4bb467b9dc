/**
 * Counts every SQL statement a process sends (`edge_db_statements_total`), on the pg pool and on
 * the embedded database alike, transaction control included: the number of round trips a
 * request costs is what the benchmark reports per scenario.
 */
import { processMetrics } from '@edge/metrics';

/** Operations counted by name; anything else is `other`, so the label stays small. */
const OPERATIONS = new Set(['select', 'insert', 'update', 'delete', 'with', 'begin', 'commit', 'rollback', 'savepoint', 'release', 'set', 'create', 'alter', 'drop', 'lock', 'analyze', 'vacuum', 'truncate']);

const A = 65;
const Z = 90;
const LOWER = 32;

/** The first keyword of `text`, lower case (`start transaction` is `begin`), or `other`. */
export function statementOperation(text: string): string {
  let i = 0;
  while (i < text.length && text.charCodeAt(i) <= 32) i++;
  let word = '';
  for (; i < text.length && word.length < 10; i++) {
    const c = text.charCodeAt(i) & ~LOWER;
    if (c < A || c > Z) break;
    word += String.fromCharCode(c | LOWER);
  }
  if (word === 'start') return 'begin';
  return OPERATIONS.has(word) ? word : 'other';
}

/** Records one statement about to be sent. */
export function countStatement(text: string): void {
  processMetrics().dbStatement(statementOperation(text));
}

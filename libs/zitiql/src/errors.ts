/**
 * The errors of the filter language, as OpenZiti's catalog names them.
 */
import { ZitiError, type ZitiCode } from '@edge/errors';

/** Where a list error came from: the `filter` or the `sort` parameter. */
export type ListParam = 'filter' | 'sort';

/**
 * A 400 naming the parameter, the position in its text and what went wrong, e.g.
 * `expected a value after "=" at position 7`.
 */
export function queryError(code: ZitiCode, param: ListParam, text: string, pos: number, reason: string): ZitiError {
  const at = `${reason} at position ${pos}`;
  return new ZitiError(code, {
    cause: { field: param, reason: at, value: text, position: pos },
    causeMessage: `${param}: ${at}`,
  });
}

/** An INVALID_FILTER error for the filter text at a position. */
export function filterError(text: string, pos: number, reason: string): ZitiError {
  return queryError('INVALID_FILTER', 'filter', text, pos, reason);
}

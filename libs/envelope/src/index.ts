/**
 * The OpenZiti response envelope: `{data, meta}` on success, `{error, meta}` on failure.
 */
import { type ZitiError } from '@edge/errors';

/** Meta block of every error envelope (as the OpenZiti controller sends). */
export const errorMeta = { apiVersion: '0.0.1', apiEnrollmentVersion: '0.0.1' } as const;

export interface Pagination {
  limit: number;
  offset: number;
  totalCount: number;
}

/** A detail or action envelope. */
export function ok<T>(data: T, meta: Record<string, unknown> = {}) {
  return { data, meta };
}

/** The 200 envelope of update, patch, delete and actions. */
export function empty() {
  return { data: {}, meta: {} };
}

/** A list envelope with pagination and filterable fields. */
export function list<T>(data: T[], pagination: Pagination, filterableFields: string[] = []) {
  return { data, meta: { pagination, filterableFields } };
}

/** The 201 envelope of a create: the new id and a link to it relative to the collection. */
export function created(id: string, collection: string) {
  return { data: { id, _links: { self: { href: `./${collection}/${id}` } } }, meta: {} };
}

/** A link map with a `self` entry. */
export function selfLink(collection: string, id: string) {
  return { self: { href: `./${collection}/${id}` } };
}

/** An entity reference `{id, name, entity, _links}`. */
export function entityRef(collection: string, entity: string, id: string, name: string) {
  return { id, name, entity, _links: selfLink(collection, id) };
}

/** The error envelope of a ZitiError, with the request id. */
export function error(e: Pick<ZitiError, 'code' | 'message' | 'fieldCause' | 'causeMessage' | 'args'>, requestId: string) {
  const body: Record<string, unknown> = { code: e.code, message: e.message, requestId };
  if (e.fieldCause) body.cause = e.fieldCause;
  if (e.causeMessage) body.causeMessage = e.causeMessage;
  if (e.args) body.args = e.args;
  return { error: body, meta: { ...errorMeta } };
}

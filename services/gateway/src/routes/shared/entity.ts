/**
 * Pieces every rendered entity and every update route share.
 */
import { selfLink } from '@edge/envelope';
import { tags, z } from '@edge/schemas';

/** A JSON object sent as text by a service (tags, data, schemas); `{}` when empty or broken. */
export function jsonObject(text: string | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The fields of OpenZiti's baseEntity, with `self` and any nested links of the collection. */
export function baseEntity(
  e: { id: string; createdAt: string; updatedAt: string; tagsJson: string },
  collection: string,
  nested: readonly string[] = [],
) {
  // Built as one literal, not spread from selfLink: a spread copy that then takes more keys is
  // many times slower to make and to serialize (it is hot: every entity of every list).
  const links: Record<string, { href: string }> = { self: selfLink(collection, e.id).self };
  for (const n of nested) links[n] = { href: `./${collection}/${e.id}/${n}` };
  return { id: e.id, createdAt: e.createdAt, updatedAt: e.updatedAt, _links: links, tags: jsonObject(e.tagsJson) };
}

/**
 * An entity's baseEntity fields followed by its own, in that order, as one object. Not written as
 * a spread followed by more properties (`{ ...baseEntity(e), name }`): V8 11 (Node 20) builds
 * such an object tens of times slower, and every entity of every list is built this way.
 */
export function withFields<B extends object, F extends object>(base: B, fields: F): Omit<B, keyof F> & F {
  return Object.assign(base, fields);
}

/** `tags` as a create or update body may carry it. */
export const optionalTags = tags.nullable().optional();

/** Role lists of a policy body; null means none. */
export const roleList = z.array(z.string().max(1000)).max(1000).nullable().optional();

/** The JSON names of `fields` present in a PATCH body (the fields it changes). */
export function presentFields(body: unknown, fields: readonly string[]): string[] {
  const b = (body ?? {}) as Record<string, unknown>;
  return fields.filter((f) => Object.hasOwn(b, f));
}

/** The route parameter `id`. */
export function idParam(params: unknown): string {
  return (params as { id: string }).id;
}

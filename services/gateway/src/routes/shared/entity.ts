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
  const links: Record<string, { href: string }> = { ...selfLink(collection, e.id) };
  for (const n of nested) links[n] = { href: `./${collection}/${e.id}/${n}` };
  return { id: e.id, createdAt: e.createdAt, updatedAt: e.updatedAt, _links: links, tags: jsonObject(e.tagsJson) };
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

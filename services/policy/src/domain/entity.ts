/**
 * Rules shared by every entity of the policy service: names, tags, role attributes, updates.
 */
import { fieldError } from '@edge/errors';

export type Json = Record<string, unknown>;

/** A stored entity's common fields. */
export interface Stored {
  id: string;
  tags: Json;
  createdAt: Date;
  updatedAt: Date;
}

/** Reads a JSON object sent as text; empty or null means `{}`; anything else is a 400 on `field`. */
export function parseJsonObject(field: string, text: string | undefined): Json {
  if (!text) return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw fieldError(field, 'must be a JSON object', text);
  }
  if (v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw fieldError(field, 'must be a JSON object', v);
  return v as Json;
}

/** A name must not be empty. */
export function checkName(name: string): void {
  if (!name.trim()) throw fieldError('name', 'must not be empty', name);
}

/** Role attributes of an entity may not start with # or @ (they would read as roles). */
export function checkRoleAttributes(attributes: readonly string[], field = 'roleAttributes'): void {
  attributes.forEach((attr, i) => {
    if (attr === '') throw fieldError(`${field}[${i}]`, 'must not be empty', attr);
    if (attr.startsWith('#') || attr.startsWith('@')) {
      throw fieldError(`${field}[${i}]`, 'role attributes may not start with # or @', attr);
    }
  });
}

/**
 * Applies an update mask: the fields it names (by JSON name, mapped through `keys`) take the
 * new values, the others keep the current ones. An unknown name is a 400.
 */
export function applyMask<T extends object>(current: T, next: T, mask: readonly string[], keys: Readonly<Record<string, keyof T>>): T {
  const out = { ...current };
  for (const name of mask) {
    const key = Object.hasOwn(keys, name) ? keys[name] : undefined;
    if (key === undefined) throw fieldError(name, 'is not a writable field', name);
    out[key] = next[key];
  }
  return out;
}

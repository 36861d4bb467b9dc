/**
 * What a `map<string, string>` field carries of a stored JSON value: the string entries of an
 * object. OpenZiti's string maps (an edge router's supported protocols) hold only strings, so an
 * entry of another type, or a value that is no object at all, is not one the API can answer
 * with: it is left out rather than sent as something the spec does not allow.
 */
export function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
}

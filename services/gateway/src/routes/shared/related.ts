/**
 * Helpers for lists that relate entities of different owners through policies.
 */

/** The role lists (each with its policy's semantic) a set of policies use for one kind of entity. */
export function roleSelections<P extends { semantic: string }>(policies: P[], roles: (p: P) => string[]) {
  return { selections: policies.map((p) => ({ roles: roles(p), semantic: p.semantic })) };
}

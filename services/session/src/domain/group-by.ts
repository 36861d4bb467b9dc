/**
 * Grouping of sessions by a key (identity, service, API session), keeping their order.
 */

/** The items by key, each group in the order the items came. */
export function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of items) out.set(key(t), [...(out.get(key(t)) ?? []), t]);
  return out;
}

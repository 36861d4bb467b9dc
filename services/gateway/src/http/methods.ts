/**
 * Which methods a path is served with, from the route registry: a request the router cannot
 * match is 405 METHOD_NOT_ALLOWED (with `Allow`) when its path is served with other methods, as
 * OpenZiti's ServeError answers (controller/env/helpers.go), and 404 only when it is not.
 */
import type { RouteEntry } from './route.js';

interface Pattern {
  /** Literal segments, or undefined for a parameter (`:id`). */
  segments: Array<string | undefined>;
  methods: Set<string>;
}

/** Segments as the router sees them: duplicate slashes ignored, a trailing one kept. */
const split = (path: string) => path.replace(/\/{2,}/g, '/').split('/');

/** Builds the lookup; `allowed(path)` lists the methods (HEAD with GET, as fastify serves it). */
export function createMethodIndex(registry: readonly RouteEntry[]) {
  let patterns: Pattern[] | undefined;
  const build = () => {
    const byUrl = new Map<string, Pattern>();
    for (const r of registry) {
      let p = byUrl.get(r.url);
      if (!p) {
        p = { segments: split(r.url).map((s) => (s.startsWith(':') ? undefined : s)), methods: new Set() };
        byUrl.set(r.url, p);
      }
      p.methods.add(r.method);
      if (r.method === 'GET') p.methods.add('HEAD');
    }
    return [...byUrl.values()];
  };
  return {
    allowed(path: string): string[] {
      patterns ??= build();
      const segs = split(path.split('?')[0]!);
      const methods = new Set<string>();
      for (const p of patterns) {
        if (p.segments.length !== segs.length) continue;
        if (p.segments.every((s, i) => (s === undefined ? segs[i] !== '' : s === segs[i]))) p.methods.forEach((m) => methods.add(m));
      }
      return [...methods].sort();
    },
  };
}

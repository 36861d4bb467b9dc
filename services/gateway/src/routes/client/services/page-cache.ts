/**
 * Rendered pages of the client service list, by caller and query, each kept with the digest of
 * the caller's whole list it was rendered from (GetServiceListDigest, which the policy service
 * answers from its own cache). While the digest is unchanged, the page is sent again as the bytes
 * sent before: a client asking for its services again costs a digest instead of evaluating,
 * encoding, decoding and rendering every service.
 *
 * A page confirmed by its digest may also be held: sent without asking for the digest again
 * while nothing the policy service owns has changed since (the generation of
 * http/list-changes.ts) and for at most the hold's time; a page sent in the last part of its
 * hold is confirmed again in the background (routes.ts).
 *
 * The digest is read before the page (asked for first, or answered with the page by the policy
 * service, which reads it first), so a change between the two leaves a page newer than its digest
 * (asked for again next time), never an older one. Pages whose services name posture
 * checks are not kept: whether each passes belongs to the API session and changes with time.
 * Bounded by bytes; the least recently used pages go first.
 */
import { holds, type Hold } from '../../../http/list-changes.js';

export interface ServicePageCache {
  /** The page of `key`, if kept for this `digest` (a page of another digest is dropped); `hold` is its new hold. */
  get(key: string, digest: string, hold?: Hold): Buffer | undefined;
  /** True when a page of `key` is kept, of whatever digest. */
  has(key: string): boolean;
  /** The page of `key`, if held at `generation` and its hold has not run out. */
  held(key: string, generation: number, now?: number): Buffer | undefined;
  /** The hold of the page of `key`, if it has one. */
  holdOf(key: string): Hold | undefined;
  put(key: string, digest: string, body: Buffer, hold?: Hold): void;
  readonly bytes: number;
}

interface Page {
  digest: string;
  body: Buffer;
  hold?: Hold;
}

export function createServicePageCache(maxBytes = 64 * 1024 * 1024): ServicePageCache {
  const pages = new Map<string, Page>();
  let bytes = 0;
  const remove = (key: string) => {
    const page = pages.get(key);
    if (page && pages.delete(key)) bytes -= page.body.length;
  };
  /** Marks `page` the most recently used (last in the map). */
  const touch = (key: string, page: Page) => {
    pages.delete(key);
    pages.set(key, page);
    return page.body;
  };
  return {
    get(key, digest, hold) {
      const page = pages.get(key);
      if (!page) return undefined;
      if (page.digest !== digest) {
        remove(key);
        return undefined;
      }
      page.hold = hold;
      return touch(key, page);
    },
    has(key) {
      return pages.has(key);
    },
    held(key, generation, now = Date.now()) {
      const page = pages.get(key);
      if (!page || !holds(page.hold, generation, now)) return undefined;
      return touch(key, page);
    },
    holdOf(key) {
      return pages.get(key)?.hold;
    },
    put(key, digest, body, hold) {
      remove(key);
      if (body.length > maxBytes) return;
      pages.set(key, { digest, body, ...(hold ? { hold } : {}) });
      bytes += body.length;
      while (bytes > maxBytes) remove(pages.keys().next().value!);
    },
    get bytes() {
      return bytes;
    },
  };
}

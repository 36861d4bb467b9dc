/**
 * Rendered pages of the client service list, by caller and query, each kept with the digest of
 * the caller's whole list it was rendered from (GetServiceListDigest, which the policy service
 * answers from its own cache). While the digest is unchanged, the page is sent again as the bytes
 * sent before: a client asking for its services again costs a digest instead of evaluating,
 * encoding, decoding and rendering every service.
 *
 * The digest is asked for before the page, so a change between the two leaves a page newer than
 * its digest (asked for again next time), never an older one. Pages whose services name posture
 * checks are not kept: whether each passes belongs to the API session and changes with time.
 * Bounded by bytes; the least recently used pages go first.
 */
export interface ServicePageCache {
  /** The page of `key`, if kept for this `digest` (a page of another digest is dropped). */
  get(key: string, digest: string): Buffer | undefined;
  put(key: string, digest: string, body: Buffer): void;
  readonly bytes: number;
}

export function createServicePageCache(maxBytes = 64 * 1024 * 1024): ServicePageCache {
  const pages = new Map<string, { digest: string; body: Buffer }>();
  let bytes = 0;
  const remove = (key: string) => {
    const page = pages.get(key);
    if (page && pages.delete(key)) bytes -= page.body.length;
  };
  return {
    get(key, digest) {
      const page = pages.get(key);
      if (!page) return undefined;
      if (page.digest !== digest) {
        remove(key);
        return undefined;
      }
      // Most recently used last.
      pages.delete(key);
      pages.set(key, page);
      return page.body;
    },
    put(key, digest, body) {
      remove(key);
      if (body.length > maxBytes) return;
      pages.set(key, { digest, body });
      bytes += body.length;
      while (bytes > maxBytes) remove(pages.keys().next().value!);
    },
    get bytes() {
      return bytes;
    },
  };
}

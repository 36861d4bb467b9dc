import { describe, expect, it } from 'vitest';
import { createServicePageCache } from './page-cache.js';

const page = (text: string) => Buffer.from(text);

describe('the service page cache', () => {
  it('answers a page only for the digest it was kept with, and forgets it for another', () => {
    const pages = createServicePageCache();
    pages.put('caller-a', 'digest-1', page('{"data":[1]}'));
    expect(pages.get('caller-a', 'digest-1')?.toString()).toBe('{"data":[1]}');
    expect(pages.get('caller-b', 'digest-1')).toBeUndefined();
    expect(pages.get('caller-a', 'digest-2')).toBeUndefined();
    // Dropped once another digest was seen: the old digest does not bring it back.
    expect(pages.get('caller-a', 'digest-1')).toBeUndefined();
    expect(pages.bytes).toBe(0);
  });

  it('keeps at most its bytes, dropping the least recently used pages first', () => {
    const pages = createServicePageCache(30);
    pages.put('a', 'd', page('x'.repeat(10)));
    pages.put('b', 'd', page('y'.repeat(10)));
    expect(pages.get('a', 'd')).toBeDefined(); // a is now the most recently used
    pages.put('c', 'd', page('z'.repeat(15)));
    expect(pages.get('b', 'd')).toBeUndefined();
    expect(pages.get('a', 'd')).toBeDefined();
    expect(pages.get('c', 'd')).toBeDefined();
    expect(pages.bytes).toBe(25);
    pages.put('huge', 'd', page('w'.repeat(31)));
    expect(pages.get('huge', 'd')).toBeUndefined();
    expect(pages.bytes).toBe(25);
  });
});

describe('held pages', () => {
  it('are sent while the generation they were confirmed at is current and their hold has not run out', () => {
    const pages = createServicePageCache();
    pages.put('a', 'd', page('{"data":[]}'), { generation: 3, until: 1_000 });
    expect(pages.held('a', 3, 999)?.toString()).toBe('{"data":[]}');
    expect(pages.held('a', 4, 999)).toBeUndefined();
    expect(pages.held('a', 3, 1_000)).toBeUndefined();
    // Still kept for its digest, and confirming it again holds it anew.
    expect(pages.get('a', 'd', { generation: 4, until: 2_000 })).toBeDefined();
    expect(pages.held('a', 4, 1_500)).toBeDefined();
  });

  it('are not held when kept or confirmed without a hold', () => {
    const pages = createServicePageCache();
    pages.put('a', 'd', page('x'));
    expect(pages.held('a', 0, 0)).toBeUndefined();
    pages.put('b', 'd', page('y'), { generation: 0, until: 10 });
    expect(pages.get('b', 'd')).toBeDefined();
    expect(pages.held('b', 0, 0)).toBeUndefined();
  });
});

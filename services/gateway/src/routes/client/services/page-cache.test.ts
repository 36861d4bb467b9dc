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

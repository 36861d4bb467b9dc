import { describe, expect, it } from 'vitest';
import { acceptsGzip } from './compression.js';

describe('acceptsGzip', () => {
  it('reads what clients send', () => {
    expect(acceptsGzip('gzip, deflate')).toBe(true); // the C SDK's HTTP client
    expect(acceptsGzip('gzip')).toBe(true); // Go's
    expect(acceptsGzip('gzip, deflate, br, zstd')).toBe(true); // browsers
    expect(acceptsGzip('deflate')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip('')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });

  it('honours q values and *', () => {
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('gzip; q=0.0, deflate')).toBe(false);
    expect(acceptsGzip('GZIP;Q=0.5')).toBe(true);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('*;q=0')).toBe(false);
    expect(acceptsGzip('gzip;q=0, *')).toBe(false);
    expect(acceptsGzip('x-gzip')).toBe(true);
    expect(acceptsGzip(['deflate', 'gzip'])).toBe(true);
  });
});

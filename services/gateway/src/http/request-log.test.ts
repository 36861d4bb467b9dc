import { describe, expect, it } from 'vitest';
import { loggableQuery } from './request-log.js';

describe('loggableQuery', () => {
  it('replaces the values of credential parameters and keeps the rest as sent', () => {
    expect(loggableQuery('/enroll?method=ott&token=abc.def')).toBe('method=ott&token=[redacted]');
    expect(loggableQuery('/enroll/updb?TOKEN=abc&token=def&x=%20y')).toBe('TOKEN=[redacted]&token=[redacted]&x=%20y');
    expect(loggableQuery('/e?%74oken=abc')).toBe('%74oken=[redacted]');
    expect(loggableQuery('/e?%zz=1&filter=name%3D%22a%22')).toBe('%zz=1&filter=name%3D%22a%22');
  });

  it('is undefined without a query', () => {
    expect(loggableQuery('/version')).toBeUndefined();
    expect(loggableQuery('/version?')).toBeUndefined();
  });
});

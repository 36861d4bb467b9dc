import { ZitiError, fieldError } from '@edge/errors';
import { describe, expect, it } from 'vitest';
import { decodeZitiError, encodeZitiError } from './errors.js';

describe('encodeZitiError / decodeZitiError', () => {
  it('carries the code, status, message and cause of an error across', () => {
    const sent = fieldError('serviceId', 'service not found', 'svc');
    const got = decodeZitiError(encodeZitiError(sent))!;
    expect(got).toBeInstanceOf(ZitiError);
    expect({ code: got.code, status: got.status, message: got.message, cause: got.fieldCause, causeMessage: got.causeMessage })
      .toEqual({ code: sent.code, status: sent.status, message: sent.message, cause: sent.fieldCause, causeMessage: sent.causeMessage });
  });

  it('stays under 4 KB whatever value an error echoes, keeping its code, field and reason', () => {
    const emoji = '\u{1F600}'.repeat(50_000);
    const values: unknown[] = ['x'.repeat(70_000), emoji, Array.from({ length: 10_000 }, (_, i) => `item-${i}`),
      Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, { deeper: ['y'.repeat(5_000)] }]))];
    for (const value of values) {
      const bytes = encodeZitiError(fieldError(`field-${emoji.slice(0, 4)}`, 'must be shorter', value));
      expect(bytes.length).toBeLessThanOrEqual(4096);
      expect(decodeZitiError(bytes)).toMatchObject({ code: 'COULD_NOT_VALIDATE', status: 400, fieldCause: { field: `field-${emoji.slice(0, 4)}`, reason: 'must be shorter' } });
    }
    // A long text is cut, not dropped.
    expect((decodeZitiError(encodeZitiError(fieldError('f', 'r', 'z'.repeat(5_000))))!.fieldCause as { value: string }).value).toBe(`${'z'.repeat(1024)}…`);
    // An error under the limit crosses as it is.
    const small = fieldError('f', 'r', ['a', 'b']);
    expect(decodeZitiError(encodeZitiError(small))!.fieldCause).toEqual(small.fieldCause);
  });

  it('decodes nothing from bytes that are not an encoded error', () => {
    expect(decodeZitiError(Buffer.alloc(0))).toBeUndefined();
    expect(decodeZitiError('{"not":"an error"}')).toBeUndefined();
    expect(decodeZitiError('not json')).toBeUndefined();
  });
});

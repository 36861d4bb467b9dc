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

  it('decodes nothing from bytes that are not an encoded error', () => {
    expect(decodeZitiError(Buffer.alloc(0))).toBeUndefined();
    expect(decodeZitiError('{"not":"an error"}')).toBeUndefined();
    expect(decodeZitiError('not json')).toBeUndefined();
  });
});

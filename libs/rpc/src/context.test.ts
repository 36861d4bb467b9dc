import { describe, expect, it } from 'vitest';
import { currentContext, handleWithContext, type RequestContext } from './context.js';

const withDeadline = (): RequestContext => ({ requestId: 'r', deadline: Date.now() + 60_000 });

describe('handleWithContext', () => {
  it('runs the handler in the context and answers what it resolves to, then lifts the deadline', async () => {
    const ctx = withDeadline();
    const seen: (string | undefined)[] = [];
    const answer = await handleWithContext(ctx, async () => {
      await new Promise((r) => setImmediate(r));
      seen.push(currentContext().requestId);
      expect(ctx.deadline).toBeDefined();
      return 42;
    });
    expect(answer).toBe(42);
    expect(seen).toEqual(['r']);
    expect(ctx.deadline).toBeUndefined();
  });

  it('rejects with what the handler throws, synchronously or not, and lifts the deadline', async () => {
    const failing = withDeadline();
    await expect(handleWithContext(failing, async () => Promise.reject(new Error('later')))).rejects.toThrow('later');
    expect(failing.deadline).toBeUndefined();

    const throwing = withDeadline();
    const answered = handleWithContext(throwing, (() => {
      throw new Error('at once');
    }) as () => Promise<never>);
    expect(answered).toBeInstanceOf(Promise);
    await expect(answered).rejects.toThrow('at once');
    expect(throwing.deadline).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { contextOfMany, createBatcher, type BatcherOptions } from './batcher.js';
import { currentContext, runWithContext } from './context.js';

/** A batcher whose sends are held until the test answers them, recording each batch. */
function held(opts?: BatcherOptions) {
  const sent: Array<{ items: string[]; answer: (r: Array<string | Error>) => void; fail: (err: unknown) => void }> = [];
  const call = createBatcher<string, string>((items) => new Promise((answer, fail) => { sent.push({ items, answer, fail }); }), opts);
  return { sent, call };
}

/** Lets every promise callback queued so far run. */
const drain = () => new Promise((r) => setImmediate(r));

/** How a call ended, without an unhandled rejection. */
const outcome = (p: Promise<string>) => p.then((value) => ({ value }), (error: Error) => ({ error: error.message }));

describe('createBatcher', () => {
  it('sends a call alone at the end of its turn while fewer batches than maxInFlight are out', async () => {
    const { sent, call } = held({ maxInFlight: 2 });
    void call('a');
    await drain();
    expect(sent.map((s) => s.items)).toEqual([['a']]);
    void call('b');
    await drain();
    expect(sent.map((s) => s.items)).toEqual([['a'], ['b']]);
  });

  it('sends the calls of one turn together, however many batches could go', async () => {
    const { sent, call } = held({ maxInFlight: 2 });
    ['a', 'b', 'c'].forEach((x) => void call(x));
    expect(sent).toEqual([]);
    await drain();
    expect(sent.map((s) => s.items)).toEqual([['a', 'b', 'c']]);
  });

  it('holds the calls made at the limit and sends them together when a batch settles, at most maxBatch at a time', async () => {
    const { sent, call } = held({ maxInFlight: 1, maxBatch: 3 });
    const first = call('a');
    await drain();
    const rest = ['b', 'c', 'd', 'e'].map(call);
    await drain();
    expect(sent.map((s) => s.items)).toEqual([['a']]);
    sent[0]!.answer(['A']);
    expect(await first).toBe('A');
    expect(sent.map((s) => s.items)).toEqual([['a'], ['b', 'c', 'd']]);
    sent[1]!.answer(['B', 'C', 'D']);
    await drain();
    expect(sent.map((s) => s.items)).toEqual([['a'], ['b', 'c', 'd'], ['e']]);
    sent[2]!.answer(['E']);
    expect(await Promise.all(rest)).toEqual(['B', 'C', 'D', 'E']);
  });

  it('answers each call with the result at its position', async () => {
    const call = createBatcher<number, number>(async (items) => items.map((n) => n * 10), { maxInFlight: 1 });
    expect(await Promise.all([1, 2, 3, 4, 5].map(call))).toEqual([10, 20, 30, 40, 50]);
  });

  it('rejects only the item an Error stands for', async () => {
    const { sent, call } = held({ maxInFlight: 1 });
    void call('a');
    await drain();
    const calls = ['b', 'c', 'd'].map((x) => outcome(call(x)));
    sent[0]!.answer(['A']);
    await drain();
    sent[1]!.answer(['B', new Error('no c'), 'D']);
    expect(await Promise.all(calls)).toEqual([{ value: 'B' }, { error: 'no c' }, { value: 'D' }]);
  });

  it('rejects every item of a batch whose send rejects, with its error, and goes on with the next batch', async () => {
    const { sent, call } = held({ maxInFlight: 1 });
    const first = outcome(call('a'));
    await drain();
    const batch = ['b', 'c'].map((x) => outcome(call(x)));
    sent[0]!.answer(['A']);
    await drain();
    sent[1]!.fail(new Error('unreachable'));
    expect(await first).toEqual({ value: 'A' });
    expect(await Promise.all(batch)).toEqual([{ error: 'unreachable' }, { error: 'unreachable' }]);
    const after = call('d');
    await drain();
    sent[2]!.answer(['D']);
    expect(await after).toBe('D');
  });

  it('rejects every item when the results are not one per item', async () => {
    const { sent, call } = held({ maxInFlight: 1 });
    void call('a');
    await drain();
    const batch = ['b', 'c'].map((x) => outcome(call(x)));
    sent[0]!.answer(['A']);
    await drain();
    sent[1]!.answer(['B']);
    expect(await Promise.all(batch)).toEqual([
      { error: 'a batch of 2 was answered with 1 results' }, { error: 'a batch of 2 was answered with 1 results' },
    ]);
  });

  it('sends a batch in the async context of its first call, not of the call whose answer set it off', async () => {
    const { sent, call } = held({ maxInFlight: 1 });
    const seen: Array<string | undefined> = [];
    const traced = createBatcher<string, string>(async (items) => {
      seen.push(currentContext().requestId);
      return call(items.join('+')).then((r) => items.map(() => r));
    }, { maxInFlight: 1 });
    const first = runWithContext({ requestId: 'r1' }, () => traced('a'));
    await drain();
    await drain();
    const rest = ['r2', 'r3'].map((requestId, i) => runWithContext({ requestId }, () => traced(['b', 'c'][i]!)));
    sent[0]!.answer(['A']);
    await drain();
    await drain();
    sent[1]!.answer(['BC']);
    expect(await Promise.all([first, ...rest])).toEqual(['A', 'BC', 'BC']);
    expect(seen).toEqual(['r1', 'r2']);
  });

  it('rejects the items of a send that throws instead of answering', async () => {
    const call = createBatcher<string, string>(() => { throw new Error('refused'); });
    await expect(call('a')).rejects.toThrow('refused');
  });
});

describe('contextOfMany', () => {
  it('takes the first request id and the latest deadline, and acts for nobody', () => {
    const principal = { identityId: 'i' } as never;
    expect(contextOfMany([{ requestId: 'r1', deadline: 5, principal, actorId: 'i' }, { requestId: 'r2', deadline: 9 }])).toEqual({ requestId: 'r1', deadline: 9 });
    expect(contextOfMany([{ requestId: 'r1', deadline: 5 }, { requestId: 'r2' }])).toEqual({ requestId: 'r1' });
  });
});

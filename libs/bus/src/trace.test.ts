import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { connect } from 'nats';
import {
  ROOT_CONTEXT, context, createContextKey, propagation,
  type Context, type ContextManager, type TextMapPropagator,
} from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryBus, createNatsBus, streamName, type Bus } from './index.js';

const NATS_URL = process.env.EDGE_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const TRACE = createContextKey('test-trace');

/** Stands in for an OTel SDK: an AsyncLocalStorage context manager and a one-header propagator. */
class TestContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active(): Context { return this.storage.getStore() ?? ROOT_CONTEXT; }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A
  ): ReturnType<F> { return this.storage.run(ctx, () => fn.call(thisArg, ...args)); }
  bind<T>(_ctx: Context, target: T): T { return target; }
  enable(): this { return this; }
  disable(): this { this.storage.disable(); return this; }
}

const propagator: TextMapPropagator = {
  inject(ctx, carrier, setter) {
    const value = ctx.getValue(TRACE);
    if (typeof value === 'string') setter.set(carrier, 'x-test-trace', value);
  },
  extract(ctx, carrier, getter) {
    const value = getter.get(carrier, 'x-test-trace');
    return typeof value === 'string' ? ctx.setValue(TRACE, value) : ctx;
  },
  fields: () => ['x-test-trace'],
};

const prefix = `t${randomBytes(4).toString('hex')}.`;

beforeAll(() => {
  context.setGlobalContextManager(new TestContextManager());
  propagation.setGlobalPropagator(propagator);
});

afterAll(async () => {
  context.disable();
  propagation.disable();
  const nc = await connect({ servers: NATS_URL });
  await (await nc.jetstreamManager()).streams.delete(streamName(prefix)).catch(() => false);
  await nc.close();
});

describe.each([
  ['nats', () => createNatsBus({ url: NATS_URL, subjectPrefix: prefix })],
  ['memory', async () => createMemoryBus()],
] as const)('%s bus trace context', (_kind, open) => {
  let bus: Bus;
  beforeAll(async () => { bus = await open(); });
  afterAll(async () => { await bus.close(); });

  it('carries the publisher trace context into work and broadcast handlers', async () => {
    const seen: unknown[] = [];
    let done!: () => void;
    const both = new Promise<void>((resolve) => { done = resolve; });
    const record = async () => {
      seen.push(context.active().getValue(TRACE));
      if (seen.length === 2) done();
    };
    await bus.consume('traced', 'edge.test.traced', record);
    await bus.subscribe('edge.test.traced', record);
    await context.with(ROOT_CONTEXT.setValue(TRACE, 'trace-1'), () => bus.publish('edge.test.traced', {}));
    await both;
    expect(seen).toEqual(['trace-1', 'trace-1']);
  });
});

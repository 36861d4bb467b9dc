/**
 * Stand-in handlers for tests: the methods given, and a failing answer for every other method
 * of the contract, so a contract can grow without breaking its stand-ins.
 */
import type { AsyncHandlers } from './server.js';

/** Handlers of a service contract where every method not given fails when called. */
export function stubHandlers<H>(given: Partial<AsyncHandlers<H>>): AsyncHandlers<H> {
  const unimplemented = async (): Promise<never> => {
    throw new Error('not implemented by this stand-in');
  };
  return new Proxy(given as AsyncHandlers<H>, {
    get: (target, key) => (key in target ? target[key as keyof typeof target] : unimplemented),
  });
}

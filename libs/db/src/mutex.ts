/**
 * A FIFO async mutex: the embedded database has one session, so whoever holds it (a single
 * query, or a whole transaction) must have it alone.
 */
export interface Mutex {
  /** Waits for the lock; resolves with the function that releases it (idempotent). */
  lock(): Promise<() => void>;
}

/** Creates an unlocked FIFO mutex. */
export function createMutex(): Mutex {
  let tail: Promise<void> = Promise.resolve();
  return {
    lock() {
      let unlock!: () => void;
      const next = new Promise<void>((resolve) => { unlock = resolve; });
      const acquired = tail.then(() => {
        let released = false;
        return () => {
          if (!released) { released = true; unlock(); }
        };
      });
      tail = tail.then(() => next);
      return acquired;
    },
  };
}

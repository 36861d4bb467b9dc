/**
 * Undoing a set-up step by step: each step that created something registers how to remove it,
 * and a failure half-way, or the end of the test, runs those removals in reverse order.
 */

/** Removals registered as a set-up proceeds. */
export interface Teardown {
  /** Registers the removal of what was just created; runs before those registered earlier. */
  add(step: () => unknown): void;
  /**
   * Runs every registered removal once, latest first. A removal that fails does not stop the
   * others; their errors are thrown together afterwards.
   */
  run(): Promise<void>;
}

/** An empty {@link Teardown}. */
export function createTeardown(): Teardown {
  const steps: Array<() => unknown> = [];
  return {
    add: (step) => void steps.push(step),
    async run() {
      const errors: unknown[] = [];
      for (let step = steps.pop(); step; step = steps.pop()) {
        try {
          await step();
        } catch (err) {
          errors.push(err);
        }
      }
      if (errors.length === 1) throw errors[0];
      if (errors.length) throw new AggregateError(errors, 'several teardown steps failed');
    },
  };
}

/**
 * Runs `setUp` with a fresh {@link Teardown}; when it throws, runs the teardown (so nothing it
 * created stays behind) and rethrows the set-up's error.
 */
export async function withTeardown<T>(setUp: (teardown: Teardown) => Promise<T>): Promise<T> {
  const teardown = createTeardown();
  try {
    return await setUp(teardown);
  } catch (err) {
    await teardown.run().catch(() => undefined);
    throw err;
  }
}

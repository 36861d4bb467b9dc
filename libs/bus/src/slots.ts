/** At most `n` tasks at once: `run` waits for a free slot, then starts the task without awaiting it. */
export function createSlots(n: number) {
  const running = new Set<Promise<void>>();
  return {
    /** Resolves once `task` has started (its failure is the task's own to handle). */
    async run(task: () => Promise<void>): Promise<void> {
      while (running.size >= n) await Promise.race(running);
      const p: Promise<void> = task().catch(() => undefined).finally(() => running.delete(p));
      running.add(p);
    },
    /** Resolves when every started task has finished. */
    async idle(): Promise<void> {
      await Promise.all(running);
    },
  };
}

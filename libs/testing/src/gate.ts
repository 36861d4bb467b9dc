/**
 * A gate for stand-ins of other services: while held, `passed()` waits until `release()`, so a
 * test can have answers arrive after something else happened.
 */
export function createGate() {
  let gate: Promise<void> | undefined;
  let open = () => {};
  return {
    /** Resolves at once when the gate is open, else when it is released. */
    passed: (): Promise<void> => gate ?? Promise.resolve(),
    hold() {
      gate = new Promise((resolve) => { open = resolve; });
    },
    release() {
      gate = undefined;
      open();
    },
  };
}

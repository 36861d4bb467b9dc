/**
 * Waiting for what events do asynchronously.
 */

/** Waits until `probe` resolves true; throws after `timeoutMs`. */
export async function eventually(probe: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

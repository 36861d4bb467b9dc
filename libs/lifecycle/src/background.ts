/**
 * Start-up work that needs other services (a sweep, a reconciliation): run in the background,
 * retried while a peer answers UNAVAILABLE (it may start after this service), given up with a
 * warning after `attempts`. Returns the function that cancels it (call it at stop).
 */
import type { Logger } from '@edge/logging';

export interface BackgroundOptions {
  /** What the task is, for the log. */
  what: string;
  log: Logger;
  attempts?: number;
  retryMs?: number;
}

const isUnavailable = (err: unknown) => typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'UNAVAILABLE';

export function runInBackground(task: () => Promise<void>, opts: BackgroundOptions): () => void {
  const { attempts = 30, retryMs = 2_000 } = opts;
  let timer: NodeJS.Timeout | undefined;
  let cancelled = false;
  const attempt = async (n: number): Promise<void> => {
    if (cancelled) return;
    try {
      await task();
    } catch (err) {
      if (cancelled) return;
      if (isUnavailable(err) && n < attempts) {
        timer = setTimeout(() => void attempt(n + 1), retryMs).unref();
        return;
      }
      opts.log.warn({ err }, `${opts.what} failed`);
    }
  };
  timer = setTimeout(() => void attempt(0), 0).unref();
  return () => {
    cancelled = true;
    clearTimeout(timer);
  };
}

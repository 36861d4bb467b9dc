/**
 * Keeps child processes running: one that exits while the supervisor is not stopping is started
 * again after a back-off that doubles with each quick exit, up to a cap, and starts from the
 * beginning once a process has run long enough to count as healthy. Stopping ends every child
 * (SIGTERM, then SIGKILL after the grace period) and restarts nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from '@edge/logging';

/** Restart timing. */
export interface Backoff {
  /** Delay before the first restart. */
  initialMs: number;
  /** The longest delay, reached by a process that keeps exiting. */
  maxMs: number;
  /** A process that ran this long before exiting is restarted after `initialMs` again. */
  stableMs: number;
}

/** Restart promptly (a killed service is back within seconds), give up to every 30 s for a crash loop. */
export const DEFAULT_BACKOFF: Backoff = { initialMs: 200, maxMs: 30_000, stableMs: 30_000 };

/** One supervised process as the supervisor sees it. */
export interface SupervisedProcess {
  readonly name: string;
  /** The running child, if any (undefined while waiting to restart). */
  readonly child: ChildProcess | undefined;
  /** How many times it was started again after an exit. */
  readonly restarts: number;
}

/** Options of {@link createSupervisor}. */
export interface SupervisorOptions {
  log: Logger;
  backoff?: Backoff;
  /** Told of every exit (also during stop), after it is logged. */
  onExit?: (name: string, code: number | null, signal: NodeJS.Signals | null) => void;
}

/** The delay before restart number `attempt` (0-based) under `backoff`. */
export function restartDelay(backoff: Backoff, attempt: number): number {
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** attempt);
}

interface Entry {
  name: string;
  args: string[];
  env: Record<string, string | undefined>;
  child?: ChildProcess;
  startedAt: number;
  attempt: number;
  restarts: number;
  timer?: NodeJS.Timeout;
}

/** Creates a supervisor; `run` starts a Node script under it. */
export function createSupervisor(opts: SupervisorOptions) {
  const backoff = opts.backoff ?? DEFAULT_BACKOFF;
  const entries: Entry[] = [];
  let stopping = false;

  const launch = (e: Entry) => {
    e.startedAt = Date.now();
    const child = spawn(process.execPath, e.args, { env: e.env, stdio: ['ignore', 'inherit', 'inherit'] });
    e.child = child;
    child.on('exit', (code, signal) => {
      e.child = undefined;
      if (!stopping) scheduleRestart(e, code, signal);
      opts.onExit?.(e.name, code, signal);
    });
  };

  const scheduleRestart = (e: Entry, code: number | null, signal: NodeJS.Signals | null) => {
    if (Date.now() - e.startedAt >= backoff.stableMs) e.attempt = 0;
    const delayMs = restartDelay(backoff, e.attempt);
    e.attempt++;
    opts.log.error({ process: e.name, code, signal, restartInMs: delayMs }, `${e.name} exited (${signal ?? `code ${code}`}); restarting in ${delayMs} ms`);
    e.timer = setTimeout(() => {
      e.timer = undefined;
      if (stopping) return;
      e.restarts++;
      launch(e);
      opts.log.info({ process: e.name, pid: e.child?.pid, restarts: e.restarts }, `${e.name} restarted`);
    }, delayMs);
  };

  return {
    /** Starts `node <script> [...args]` with `env` as process `name`, and keeps it running. */
    run(name: string, script: string, env: Record<string, string | undefined>, args: string[] = []): void {
      const e: Entry = { name, args: [script, ...args], env, startedAt: 0, attempt: 0, restarts: 0 };
      entries.push(e);
      launch(e);
    },
    /** The supervised processes, in the order they were first started. */
    processes(): SupervisedProcess[] {
      return entries.map((e) => ({ name: e.name, child: e.child, restarts: e.restarts }));
    },
    /** Stops every process without restarting any: SIGTERM, and SIGKILL after `graceMs`. */
    async stop(graceMs = 10_000): Promise<void> {
      stopping = true;
      for (const e of entries) clearTimeout(e.timer);
      const running = entries.flatMap((e) => (e.child && e.child.exitCode === null && e.child.signalCode === null ? [e.child] : []));
      const exits = running.map((c) => new Promise((r) => c.once('exit', r)));
      for (const c of running) c.kill('SIGTERM');
      const force = setTimeout(() => running.forEach((c) => c.exitCode === null && c.signalCode === null && c.kill('SIGKILL')), graceMs);
      await Promise.all(exits);
      clearTimeout(force);
    },
  };
}

export type Supervisor = ReturnType<typeof createSupervisor>;

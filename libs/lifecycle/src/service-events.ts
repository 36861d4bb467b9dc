/**
 * The event plumbing every service builds the same way (libs/outbox): its outbox and relay, the
 * bus its consumers use (skipping events they handled), and its periodic reconciliations, with
 * the timings of the configuration. Started after the service's setup, stopped before its
 * database closes.
 */
import type { Kysely } from 'kysely';
import type { Bus } from '@edge/bus';
import type { ServiceName } from '@edge/config';
import { createInbox, createOutbox, scheduleReconcile, type Outbox, type Reconciliation, type ReconcileStep } from '@edge/outbox';
import type { ServiceContext } from './infra.js';

/** A service's events: what it publishes (through `outbox`) and consumes (through `bus`). */
export interface ServiceEvents<DB> {
  /** Created on first use: a service that publishes nothing has no outbox table and no relay. */
  readonly outbox: Outbox<DB>;
  /** The process's bus, its work subscriptions deduplicated by event id. */
  bus: Bus;
  /**
   * Repairs what lost or late events left, every `EDGE_RECONCILE_INTERVAL_MS` on one replica,
   * `step` by `step` until `budgetMs` is spent (see libs/outbox reconcile.ts).
   */
  reconcile(name: string, step: ReconcileStep, budgetMs?: number): Reconciliation;
  /** Starts the relay (if the service has an outbox). */
  start(): void;
  /** Stops the reconciliations and the relay (what is left is relayed by the next start, or another replica). */
  stop(): Promise<void>;
}

/** Builds the events of service `name` over its database. */
export function createServiceEvents<DB>(ctx: ServiceContext, db: Kysely<DB>, name: ServiceName): ServiceEvents<DB> {
  const log = ctx.log.child({ service: name });
  let outbox: Outbox<DB> | undefined;
  let started = false;
  const reconciliations: Reconciliation[] = [];
  return {
    get outbox() {
      if (!outbox) {
        outbox = createOutbox<DB>({ db, bus: ctx.bus, name, log, pollMs: ctx.config.events.outboxPollMs });
        if (started) outbox.start();
      }
      return outbox;
    },
    bus: createInbox(db).guard(ctx.bus),
    reconcile(what, step, budgetMs) {
      const r = scheduleReconcile({ db, name: what, step, budgetMs, intervalMs: ctx.config.events.reconcileIntervalMs, log });
      reconciliations.push(r);
      return r;
    },
    start() {
      started = true;
      outbox?.start();
    },
    async stop() {
      started = false;
      await Promise.all(reconciliations.splice(0).map((r) => r.stop()));
      await outbox?.stop();
    },
  };
}

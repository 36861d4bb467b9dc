/**
 * @edge/outbox: events leave a service through a transactional outbox (recorded with the change,
 * relayed to the bus after commit, deleted once acknowledged), consumers skip events they already
 * handled (the inbox), and periodic reconciliations repair what a lost or late event left.
 */
export { createOutbox, enqueueEvent, enqueueEvents, type Outbox, type OutboxOptions } from './outbox.js';
export { ACTOR_HEADER, REQUEST_ID_HEADER, defaultKey, type EnqueueOptions } from './event.js';
export type { RelayOptions, RoundResult } from './relay.js';
export { createInbox, type Inbox, type InboxOptions } from './inbox.js';
export { idInPage, scheduleReconcile, type PageRange, type Reconciliation, type ReconcileOptions, type ReconcileStep } from './reconcile.js';
export type { InboxTable, OutboxDatabase, OutboxTable, ReconciliationsTable } from './tables.js';

/**
 * @edge/bus: change notifications between services over NATS JetStream (distributed) or in
 * process (standalone), behind one interface, carrying trace context in headers.
 */
export { EVENT_ID_HEADER, type Bus, type BusMessage, type ConsumeOptions, type Handler, type Subscription } from './bus.js';
export { createNatsBus, type NatsBusOptions } from './nats-bus.js';
export { createMemoryBus, type MemoryBusOptions } from './memory-bus.js';
export { durableName, streamName, subjectMatches } from './subject.js';
export { inPublishSpan, runInTraceContext, withTraceContext } from './trace.js';
export { createHeardChanges, createHeldAnswers, holds, renewsAt, SETTLE_MS, unheardChanges, type HeardChanges, type Hold } from './held.js';

/** Idempotent JetStream set-up: one stream per subject prefix, one durable consumer per group and subject. */
import {
  AckPolicy, DeliverPolicy, DiscardPolicy, RetentionPolicy, StorageType, nanos,
  type ConsumerConfig, type JetStreamManager, type StreamConfig,
} from 'nats';

/** How long the stream keeps messages: the longest outage a consumer can catch up from. */
const STREAM_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** A handler not done within this is presumed dead and its message redelivered (extended while it runs). */
export const ACK_WAIT_MS = 30_000;
/** Deliveries before JetStream gives up on a message; with back-off this spans hours. */
const MAX_DELIVER = 1_000;

/** Creates or updates the stream capturing `<prefix>edge.>`. */
export async function ensureStream(jsm: JetStreamManager, name: string, prefix: string): Promise<void> {
  const config: Partial<StreamConfig> = {
    name,
    subjects: [`${prefix}edge.>`],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_age: nanos(STREAM_MAX_AGE_MS),
  };
  try {
    await jsm.streams.add(config);
  } catch {
    // Exists with another configuration (an older release, or a racing replica): converge.
    await jsm.streams.update(name, config);
  }
}

/** Creates or updates the durable pull consumer `durable` filtered on `filter`. */
export async function ensureConsumer(
  jsm: JetStreamManager, stream: string, durable: string, filter: string,
): Promise<void> {
  const config: Partial<ConsumerConfig> = {
    durable_name: durable,
    filter_subject: filter,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(ACK_WAIT_MS),
    max_deliver: MAX_DELIVER,
    // A group seen for the first time catches up on what the stream retains.
    deliver_policy: DeliverPolicy.All,
  };
  try {
    await jsm.consumers.add(stream, config);
  } catch {
    await jsm.consumers.update(stream, durable, {
      ack_wait: config.ack_wait, max_deliver: config.max_deliver,
    });
  }
}

/**
 * The pieces every subject is built from: `edge.<owner>.<entity>.<event>`, the owner being the
 * service that publishes it (STYLE.md, naming). Subjects are NATS subjects: a subscription may
 * name `*` for one token (every event of an entity) or `>` for the rest (everything below).
 */

/** The first token of every subject; the bus stores only subjects under it (libs/bus). */
export const ROOT = 'edge';

/** The services that publish events, by the token that names them in a subject. */
export const OWNERS = ['auth', 'identity', 'pki', 'policy'] as const;
export type Owner = (typeof OWNERS)[number];

/** What happened to an entity, for the entities announced on every change. */
export type ChangeKind = 'created' | 'updated' | 'deleted';
export const CHANGE_KINDS: readonly ChangeKind[] = ['created', 'updated', 'deleted'];

/** `edge.<owner>.<entity>.<event>`: one subject. */
export const subject = <O extends Owner, E extends string, V extends string>(owner: O, entity: E, event: V) =>
  `${ROOT}.${owner}.${entity}.${event}` as const;

/** `edge.<owner>.<entity>.*`: every event of one entity. */
export const eventsOf = <O extends Owner, E extends string>(owner: O, entity: E) => `${ROOT}.${owner}.${entity}.*` as const;

/** `edge.<owner>.<entity>.>`: everything published under one entity. */
export const changesOf = <O extends Owner, E extends string>(owner: O, entity: E) => `${ROOT}.${owner}.${entity}.>` as const;

/** `edge.<owner>.>`: everything one owner publishes. */
export const everythingOf = <O extends Owner>(owner: O) => `${ROOT}.${owner}.>` as const;

/**
 * A payload as a consumer receives it, before checking it: every field of `T` may be missing or
 * of another type (the publisher may be an older or newer release), but a field `T` does not
 * declare cannot be read, so a field renamed by the publisher fails to compile at the consumer.
 */
export type Received<T> = { [K in keyof T]?: unknown };

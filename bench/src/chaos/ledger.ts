/**
 * What the controller acknowledged during a chaos run, and so must still hold afterwards, and
 * what the events of acknowledged logouts and deletions must have removed. Every entry names the
 * fault during which it was acknowledged.
 */

/** An API session the load holds: its token, identity and the sessions made with it. */
export interface ApiSession {
  token: string;
  identityId: string;
  sessionIds: string[];
  phase: string;
}

/** An acknowledged write and the phase it was acknowledged in. */
interface Acked<T> {
  value: T;
  phase: string;
}

/** A write whose events must follow, and when it was acknowledged. */
interface AckedAt<T> extends Acked<T> {
  at: number;
}

export function createLedger() {
  const ledger = {
    identities: [] as Acked<string>[],
    /** Session id → the token it was made with. */
    sessions: [] as Acked<{ id: string; token: string }>[],
    apiSessions: [] as Acked<string>[],
    /** Logouts answered 200: the token must be refused, its sessions gone. */
    loggedOut: new Map<string, AckedAt<string[]>>(),
    /** Logouts not answered (503, a dropped connection): whether they happened is not known. */
    uncertain: new Set<string>(),
    /** Identity deletions answered 200: the identity, its sessions and authenticators must be gone. */
    deleted: [] as AckedAt<{ id: string; sessionIds: string[] }>[],

    /** Whether `token` is known to be live (neither logged out nor possibly so). */
    live: (token: string) => !ledger.loggedOut.has(token) && !ledger.uncertain.has(token),
  };
  return ledger;
}

export type Ledger = ReturnType<typeof createLedger>;

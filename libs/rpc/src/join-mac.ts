/**
 * The proofs of the join exchange (see join.ts): HMAC-SHA256 under the join token, each over
 * its own label and length-prefixed fields, so no field can be moved into another.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a request's timestamp may be from the pki service's clock. */
export const JOIN_CLOCK_SKEW_MS = 5 * 60_000;

/** What a joining process sends, besides its proof. */
export interface JoinRequestFields {
  name: string;
  timestampMs: number;
  csrPem: string;
}

/** The proof of a join request: the caller holds the token and asks for this CSR, now. */
export function joinRequestMac(token: string, r: JoinRequestFields): string {
  return mac(token, 'edge.grpc.join.request.v1', [r.name, String(r.timestampMs), r.csrPem]);
}

/** The proof of an answer: a pki holding the token answered this very request with this certificate and CA. */
export function joinAnswerMac(token: string, requestMac: string, certPem: string, caPem: string): string {
  return mac(token, 'edge.grpc.join.answer.v1', [requestMac, certPem, caPem]);
}

/** Compares a received hex MAC with the expected one in constant time. */
export function macMatches(received: string, expected: string): boolean {
  const a = Buffer.from(received, 'hex');
  const b = Buffer.from(expected, 'hex');
  return a.length === b.length && a.length > 0 && timingSafeEqual(a, b);
}

function mac(token: string, label: string, fields: string[]): string {
  const h = createHmac('sha256', token);
  for (const f of [label, ...fields]) {
    const bytes = Buffer.from(f, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    h.update(length).update(bytes);
  }
  return h.digest('hex');
}

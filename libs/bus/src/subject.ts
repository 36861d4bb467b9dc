/** Subject matching and naming helpers. */
import { createHash } from 'node:crypto';

/** True when `subject` matches the NATS `pattern` (`*` one token, `>` one or more at the end). */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return i === p.length - 1 && s.length > i;
    if (i >= s.length) return false;
    if (p[i] !== '*' && p[i] !== s[i]) return false;
  }
  return p.length === s.length;
}

/** JetStream stream name for a subject prefix: `EDGE`, or `EDGE_<prefix>` in valid characters. */
export function streamName(prefix: string): string {
  const tail = prefix.replace(/[^A-Za-z0-9_-]/g, '_').replace(/^_+|_+$/g, '');
  return tail === '' ? 'EDGE' : `EDGE_${tail}`;
}

/**
 * Durable consumer name for a group and subject: readable, only `A-Za-z0-9_-`, with a hash so
 * that different subjects sanitising alike (`a.b`, `a_b`) still get different consumers.
 */
export function durableName(group: string, subject: string): string {
  const readable = `${group}_${subject}`
    .replaceAll('*', 'any').replaceAll('>', 'all')
    .replace(/[^A-Za-z0-9_-]/g, '_')
    .slice(0, 80);
  const hash = createHash('sha256').update(`${group}\0${subject}`).digest('hex').slice(0, 10);
  return `${readable}-${hash}`;
}

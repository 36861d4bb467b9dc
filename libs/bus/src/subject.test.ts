import { describe, expect, it } from 'vitest';
import { durableName, streamName, subjectMatches } from './subject.js';

describe('subjectMatches', () => {
  it.each([
    ['edge.identity.identity.*', 'edge.identity.identity.created', true],
    ['edge.identity.identity.*', 'edge.identity.identity.created.x', false],
    ['edge.identity.>', 'edge.identity.identity.created', true],
    ['edge.identity.>', 'edge.identity', false],
    ['edge.*.identity.deleted', 'edge.auth.identity.deleted', true],
    ['edge.auth.api-session.deleted', 'edge.auth.api-session.deleted', true],
    ['edge.auth.api-session.deleted', 'edge.auth.api-session', false],
  ])('%s against %s is %s', (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected);
  });
});

describe('names', () => {
  it('derives stream names from the prefix in valid characters', () => {
    expect(streamName('')).toBe('EDGE');
    expect(streamName('t8f3a.')).toBe('EDGE_t8f3a');
    expect(streamName('a.b*c.')).toBe('EDGE_a_b_c');
  });

  it('derives distinct durable names using only A-Za-z0-9_-', () => {
    const one = durableName('session', 'edge.auth.api-session.*');
    const two = durableName('session', 'edge.auth.api-session.>');
    const three = durableName('session', 'edge_auth_api-session_any');
    expect(one).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(new Set([one, two, three]).size).toBe(3);
    expect(durableName('session', 'edge.auth.api-session.*')).toBe(one);
  });
});

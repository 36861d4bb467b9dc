import { subjectMatches } from '@edge/bus';
import { describe, expect, it } from 'vitest';
import { ALL_PATTERNS, ALL_SUBJECTS, OWNERS, routerSubject, policySubject, authSettingSubject, caSubject, enrollmentSubject } from './index.js';

const TOKEN = '[a-z]+(?:-[a-z]+)*';
const CONVENTION = new RegExp(`^edge\\.(${OWNERS.join('|')})\\.${TOKEN}\\.${TOKEN}$`);

describe('event subjects', () => {
  it('declares every subject once', () => {
    expect(new Set(ALL_SUBJECTS).size).toBe(ALL_SUBJECTS.length);
  });

  it('names every subject edge.<owner>.<entity>.<event>, in lower kebab-case', () => {
    expect(ALL_SUBJECTS.filter((s) => !CONVENTION.test(s))).toEqual([]);
  });

  it('has every pattern match at least one declared subject', () => {
    expect(ALL_PATTERNS.filter((p) => !ALL_SUBJECTS.some((s) => subjectMatches(p, s)))).toEqual([]);
  });

  it('declares every pattern once, each with a wildcard', () => {
    expect(new Set(ALL_PATTERNS).size).toBe(ALL_PATTERNS.length);
    expect(ALL_PATTERNS.filter((p) => !/(^|\.)(\*|>)(\.|$)/.test(p))).toEqual([]);
  });

  it('builds parameterised subjects as the fixed ones are spelled', () => {
    expect(routerSubject('transit', 'deleted')).toBe('edge.identity.transit-router.deleted');
    expect(policySubject('service-edge-router-policy', 'updated')).toBe('edge.policy.service-edge-router-policy.updated');
    expect(authSettingSubject('external-jwt-signer', 'deleted')).toBe('edge.auth.external-jwt-signer.deleted');
    expect(caSubject('verified')).toBe('edge.pki.ca.verified');
    expect(enrollmentSubject('updated')).toBe('edge.pki.enrollment.updated');
  });

  // The subjects are the wire contract between releases: one renamed here is one a running
  // consumer of an older release no longer hears. This list changes only on purpose.
  it('keeps the subjects on the wire', () => {
    expect([...ALL_SUBJECTS].sort()).toEqual([
      'edge.auth.api-session.created', 'edge.auth.api-session.deleted', 'edge.auth.api-session.updated',
      'edge.auth.auth-policy.deleted', 'edge.auth.auth-policy.updated',
      'edge.auth.authenticator.created', 'edge.auth.authenticator.deleted', 'edge.auth.authenticator.updated',
      'edge.auth.external-jwt-signer.deleted', 'edge.auth.external-jwt-signer.updated',
      'edge.auth.mfa.deleted', 'edge.auth.mfa.verified', 'edge.auth.principal.updated',
      'edge.identity.edge-router.created', 'edge.identity.edge-router.deleted', 'edge.identity.edge-router.updated',
      'edge.identity.identity.created', 'edge.identity.identity.deleted', 'edge.identity.identity.disabled',
      'edge.identity.identity.environment', 'edge.identity.identity.updated',
      'edge.identity.service-configs.changed',
      'edge.identity.transit-router.created', 'edge.identity.transit-router.deleted', 'edge.identity.transit-router.updated',
      'edge.pki.ca.created', 'edge.pki.ca.deleted', 'edge.pki.ca.updated', 'edge.pki.ca.verified',
      'edge.pki.enrollment.created', 'edge.pki.enrollment.deleted', 'edge.pki.enrollment.updated',
      ...['config', 'config-type', 'edge-router-policy', 'posture-check', 'service', 'service-edge-router-policy', 'service-policy']
        .flatMap((e) => ['created', 'deleted', 'updated'].map((k) => `edge.policy.${e}.${k}`)),
    ].sort());
  });

  it('keeps the patterns consumers subscribe to (durable consumers are named after them)', () => {
    expect([...ALL_PATTERNS].sort()).toEqual([
      'edge.auth.auth-policy.*', 'edge.auth.authenticator.*', 'edge.auth.external-jwt-signer.*', 'edge.auth.mfa.*',
      'edge.identity.edge-router.>', 'edge.identity.identity.*', 'edge.identity.identity.>', 'edge.identity.service-configs.>',
      'edge.pki.ca.*', 'edge.pki.enrollment.*',
      'edge.policy.>', 'edge.policy.posture-check.>', 'edge.policy.service-policy.>',
    ].sort());
  });
});

import { describe, expect, it } from 'vitest';
import { ZitiError } from '@edge/errors';
import type { Clients } from '../../../clients.js';
import { createIdentityWithEnrollments } from './enrollments.js';

/**
 * Stand-ins for the identity and pki services where the pki service has already made the
 * identity's OTT enrollment from the created event (its consumer ran before the gateway's call),
 * and answers a second one as OpenZiti does: ENROLLMENT_EXISTS, unless asked for it if absent.
 */
function owners() {
  const created: unknown[] = [];
  const deleted: string[] = [];
  const clients = {
    identity: {
      createIdentity: async (req: unknown) => {
        created.push(req);
        return { id: 'i1' };
      },
      deleteIdentity: async ({ id }: { id: string }) => {
        deleted.push(id);
        return {};
      },
    },
    pki: {
      createEnrollment: async (req: { method: string; ifAbsent?: boolean }) => {
        if (req.method === 'ott' && !req.ifAbsent) throw new ZitiError('ENROLLMENT_EXISTS', { message: 'an ott enrollment already exists' });
        return { id: `e-${req.method}` };
      },
    },
  } as unknown as Clients;
  return { clients, created, deleted };
}

describe('creating an identity with enrollments', () => {
  it('asks the identity service to record the enrollments, and takes one the pki service already made as made', async () => {
    const o = owners();
    await expect(createIdentityWithEnrollments(o.clients, { name: 'x' } as never, { ott: true, updb: 'x' })).resolves.toBe('i1');
    expect(o.created).toEqual([{ fields: { name: 'x' }, enrollments: [{ method: 'ott' }, { method: 'updb', username: 'x' }] }]);
    expect(o.deleted).toEqual([]);
  });
});

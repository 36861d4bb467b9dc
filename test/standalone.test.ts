import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestController } from './support/controller.js';

const dataDir = mkdtempSync(join(tmpdir(), 'edge-standalone-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('standalone mode (embedded PGlite, in-process bus)', () => {
  it('bootstraps a random admin password into a 0600 file and keeps all data across a restart', async () => {
    const env = { EDGE_ADMIN_PASSWORD: '' };
    const first = await startTestController({ embedded: true, dataDir, env });
    let identityId: string;
    const file = join(dataDir, 'admin-credentials.txt');
    const creds = readFileSync(file, 'utf8');
    const password = /password: (\S+)/.exec(creds)![1]!;
    try {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(password.length).toBeGreaterThanOrEqual(16);
      const token = await first.login('admin', password);
      const r = await first.http.post('/edge/management/v1/identities', { body: { name: 'survivor', type: 'Device', isAdmin: false, roleAttributes: ['keep'] }, session: token, expectStatus: 201 });
      identityId = r.body.data.id;
    } finally {
      await first.stop();
    }

    const second = await startTestController({ embedded: true, dataDir, env });
    try {
      expect(readFileSync(file, 'utf8')).toBe(creds);
      const token = await second.login('admin', password);
      const r = await second.http.get(`/edge/management/v1/identities/${identityId}`, { session: token, expectStatus: 200 });
      expect(r.body.data).toMatchObject({ name: 'survivor', roleAttributes: ['keep'] });
    } finally {
      await second.stop();
    }
  });
});

import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from './harness.js';

describe('default admin bootstrap', () => {
  let h: Harness;
  let stdout: string[];
  const credentialsFile = () => join(h.config.dataDir, 'admin-credentials.txt');

  beforeAll(async () => {
    h = await createHarness();
    stdout = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
      stdout.push(String(chunk));
      return true;
    });
    try {
      await h.startAuth();
    } finally {
      spy.mockRestore();
    }
  });
  afterAll(() => h?.close());

  it('creates the admin updb authenticator for the default admin identity', async () => {
    const rows = await h.db.selectFrom('authenticators').selectAll().execute();
    expect(rows).toHaveLength(1);
    const admin = [...h.identity.identities.values()].find((i) => i.isDefaultAdmin)!;
    expect(rows[0]).toMatchObject({ method: 'updb', username: 'admin', identity_id: admin.id });
    expect(rows[0].password_hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
  });

  it('writes a generated password to a 0600 file and names it once on stdout', async () => {
    const text = await readFile(credentialsFile(), 'utf8');
    const match = /^username: admin\npassword: ([A-Za-z0-9_-]{24})\n$/.exec(text);
    expect(match).not.toBeNull();
    expect((await stat(credentialsFile())).mode & 0o777).toBe(0o600);
    const lines = stdout.filter((l) => l.includes(match![1]!));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('admin');
    expect(lines[0]).toContain(credentialsFile());
  });

  it('lets the admin log in with the generated password', async () => {
    const password = /password: (\S+)/.exec(await readFile(credentialsFile(), 'utf8'))![1]!;
    const { client } = await h.startAuth();
    const s = await client.authenticate({ method: 'password', username: 'admin', password });
    expect(s.isAdmin).toBe(true);
    expect(s.identityName).toBe('Default Admin');
  });

  it('changes nothing on a second start', async () => {
    const before = await h.db.selectFrom('authenticators').selectAll().execute();
    const fileBefore = await readFile(credentialsFile(), 'utf8');
    const callsBefore = h.identity.ensureDefaultAdminCalls;
    const write = vi.spyOn(process.stdout, 'write');
    try {
      await h.startAuth();
      expect(write).not.toHaveBeenCalled();
    } finally {
      write.mockRestore();
    }
    expect(await h.db.selectFrom('authenticators').selectAll().execute()).toEqual(before);
    expect(await readFile(credentialsFile(), 'utf8')).toBe(fileBefore);
    expect(h.identity.ensureDefaultAdminCalls).toBe(callsBefore);
  });
});

describe('default admin bootstrap with a configured password', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ EDGE_ADMIN_USERNAME: 'root', EDGE_ADMIN_PASSWORD: 'configured-secret' });
  });
  afterAll(() => h?.close());

  it('creates one authenticator when replicas start together, and writes no file', async () => {
    await Promise.all([h.startAuth(), h.startAuth(), h.startAuth()]);
    const rows = await h.db.selectFrom('authenticators').selectAll().execute();
    expect(rows.map((r) => r.username)).toEqual(['root']);
    await expect(stat(join(h.config.dataDir, 'admin-credentials.txt'))).rejects.toThrow(/ENOENT/);
    const { client } = await h.startAuth();
    const s = await client.authenticate({ method: 'password', username: 'root', password: 'configured-secret' });
    expect(s.token).not.toBe('');
  });

  it('starts when the admin\'s updb authenticator was given another username since', async () => {
    await h.db.updateTable('authenticators').set({ username: 'renamed' }).where('username', '=', 'root').execute();
    const before = await h.db.selectFrom('authenticators').selectAll().execute();
    const { client } = await h.startAuth();
    expect(await h.db.selectFrom('authenticators').selectAll().execute()).toEqual(before);
    const s = await client.authenticate({ method: 'password', username: 'renamed', password: 'configured-secret' });
    expect(s.isAdmin).toBe(true);
  });
});

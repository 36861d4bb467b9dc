/**
 * The baseline: a bare fastify HTTPS server doing one indexed Postgres read per request (an
 * identity by primary key, from the benchmark's own data). Every scenario is reported as a ratio
 * of its throughput, measured on the same machine in the same run. Run as its own process:
 * `node baseline-server.js <databaseUrl> <schema> <port>`; prints `ready` when listening.
 */
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import Fastify from 'fastify';
import pg from 'pg';

const [databaseUrl, schema, port] = process.argv.slice(2);
if (!databaseUrl || !schema || !/^[a-z_][a-z0-9_]*$/.test(schema) || !port) {
  process.stderr.write('usage: baseline-server.js <databaseUrl> <schema> <port>\n');
  process.exit(2);
}

/** A throwaway self-signed P-256 certificate for 127.0.0.1. */
async function selfSigned(): Promise<{ cert: string; key: string }> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01', name: 'CN=edge-bench-baseline', keys, signingAlgorithm: alg,
    notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 86_400_000),
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: '127.0.0.1' }])],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { cert: cert.toString('pem'), key: `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n` };
}

const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
const app = Fastify({ https: await selfSigned(), logger: false });
const query = `SELECT id, name, role_attributes FROM "${schema}".identities WHERE id = $1`;
app.get<{ Params: { id: string } }>('/identities/:id', async (req, reply) => {
  const r = await pool.query({ name: 'baseline-read', text: query, values: [req.params.id] });
  if (r.rowCount === 0) return reply.status(404).send({ error: { code: 'NOT_FOUND' } });
  return { data: r.rows[0] };
});
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.stdout.write('ready\n');
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => void app.close().then(() => pool.end()).then(() => process.exit(0)));
}

/**
 * The baseline: a bare fastify HTTPS server doing one indexed Postgres read per request (an
 * identity by primary key, from the benchmark's own data). Every scenario is reported as a ratio
 * of its throughput, measured on the same machine in the same run. Run as its own process:
 * `node baseline-server.js <databaseUrl> <schema> <port>`; prints `ready` when listening.
 */
import Fastify from 'fastify';
import pg from 'pg';
import { selfSigned } from './self-signed.js';

const [databaseUrl, schema, port] = process.argv.slice(2);
if (!databaseUrl || !schema || !/^[a-z_][a-z0-9_]*$/.test(schema) || !port) {
  process.stderr.write('usage: baseline-server.js <databaseUrl> <schema> <port>\n');
  process.exit(2);
}

const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
const app = Fastify({ https: await selfSigned('edge-bench-baseline'), logger: false });
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

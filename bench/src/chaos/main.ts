/**
 * `npm run chaos -- [--seconds N] [--only nats,postgres,auth,...] [--workers N per kind]`: starts the
 * local cluster against the local Postgres (through a relay) and a NATS of its own, drives a
 * mixed load and injects each fault in turn: NATS down, Postgres unreachable, and a SIGKILL of
 * each service and of the gateway. Prints a table and exits 1 when an answer was a 500 (or
 * anything but success and 503), an acknowledged write or an event was lost, or something did
 * not recover within 5 s.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { details, parseFaults, runChaos, table } from './index.js';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    only: { type: 'string' },
    workers: { type: 'string', default: '1' },
  },
});
const say = (s: string) => process.stdout.write(`${s}\n`);
// Ctrl-C ends the run through process exit, which stops the cluster's processes (cluster.ts).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
const result = await runChaos({
  databaseUrl: process.env.EDGE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  prefix: `chaos${randomBytes(3).toString('hex')}`,
  faults: parseFaults(args.only),
  seconds: Number(args.seconds),
  workersPerKind: Number(args.workers),
  say,
});
say('');
say(table(result));
say('');
say(details(result));
process.exitCode = result.ok ? 0 : 1;

/**
 * The raw scrypt rate of this machine: the auth service's own password verification (same
 * parameters, same libuv thread pool, since this process gets the controller's environment),
 * with as many verifications in flight as the auth service lets run at once. Run as its own
 * process: `node scrypt-rate.js <concurrency>`; each line `run <seconds>` on stdin answers one
 * JSON line `{ "count", "seconds", "latenciesMs" }` on stdout.
 */
import { createInterface } from 'node:readline';

interface Password {
  hashPassword(password: string): Promise<string>;
  verifyPassword(password: string, encoded: string | undefined): Promise<boolean>;
}

const concurrency = Number(process.argv[2]);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  process.stderr.write('usage: scrypt-rate.js <concurrency>\n');
  process.exit(2);
}
// The auth service's compiled module, not a copy of its parameters.
const password = await import(new URL('../../services/auth/dist/domain/password.js', import.meta.url).href) as Password;
const stored = await password.hashPassword('bench-password-1');

/** Keeps `concurrency` verifications in flight for `seconds`; counts those that ended in time. */
async function run(seconds: number): Promise<{ count: number; seconds: number; latenciesMs: number[] }> {
  const start = performance.now();
  const end = start + seconds * 1000;
  const latenciesMs: number[] = [];
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      if (!await password.verifyPassword('bench-password-1', stored)) throw new Error('verification failed');
      if (performance.now() <= end) latenciesMs.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { count: latenciesMs.length, seconds, latenciesMs };
}

process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  const m = /^run (\d+(?:\.\d+)?)$/.exec(line.trim());
  if (!m) continue;
  process.stdout.write(`${JSON.stringify(await run(Number(m[1])))}\n`);
}
